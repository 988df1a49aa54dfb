import ParleyCore

/// What a recording that could not be written leaves behind.
package enum RecordingFailure {
    /// 31500: the server could not write the file (the `--recordings` directory vanished, became
    /// unwritable, or the disk is full). On the call's record, the `<Record action>` request and
    /// the `failed` Recording resource's `error_code`.
    package static let code = ParleyError.Code.internalServer
    /// The Recording resource's status.
    package static let status = "failed"
}
