extension REDPayloadView {
    /// Rewrites, in place, the block payload type of every block header of a RED payload (§3: the
    /// low 7 bits of each header's first byte) to `payloadType`, as a forwarder does when the
    /// receiver numbered the codec differently. False, and nothing written, when `payload` is not
    /// a valid RED payload.
    @discardableResult
    public static func renameBlocks(in payload: UnsafeMutableRawBufferPointer, to payloadType: UInt8) -> Bool {
        guard let view = try? REDPayloadView(UnsafeRawBufferPointer(payload)) else { return false }
        var offset = 0
        for _ in 0..<view.count {
            let first = payload[offset]
            payload[offset] = first & 0x80 | payloadType & 0x7F
            offset += first & 0x80 == 0 ? 1 : 4
        }
        return true
    }
}
