import ParleyCore

/// Why a signaling text was refused, with the Parley code to answer it with.
///
/// - 31100 malformed request: not JSON, not an object, no or unknown `type`, a missing field or
///   a field of the wrong JSON type.
/// - 31400 bad request: a field's value breaks a limit or a rule (too long, control characters,
///   invalid DTMF digit, unknown reject reason, message over 64 KiB).
/// - 31484 malformed `to` in an invite.
public struct SignalingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ParleyError.Code
    /// What was wrong (never contains the token or other field values).
    public var reason: String
    /// The message's `id`, when it could be read; the reply's `ref`.
    public var id: String?

    public init(_ code: ParleyError.Code, _ reason: String, id: String? = nil) {
        self.code = code
        self.reason = reason
        self.id = id
    }

    /// The same error as a `ParleyError`.
    public var parleyError: ParleyError { ParleyError(code, reason: reason) }

    public var description: String {
        "\(code.rawValue) \(code.name): \(reason)" + (id.map { " (id \($0))" } ?? "")
    }
}
