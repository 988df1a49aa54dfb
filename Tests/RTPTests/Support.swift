import RTP

/// Runs `body` with a view of `bytes`.
func withView<T>(_ bytes: [UInt8], _ body: (RTPPacketView) throws -> T) throws -> T {
    try bytes.withUnsafeBytes { raw in try body(try RTPPacketView(raw)) }
}

/// The error parsing `bytes` as a view throws, or nil.
func viewError(_ bytes: [UInt8]) -> RTPError? {
    bytes.withUnsafeBytes { raw in
        do throws(RTPError) {
            _ = try RTPPacketView(raw)
            return nil
        } catch {
            return error
        }
    }
}

/// The error parsing `bytes` as an owned packet throws, or nil.
func packetError(_ bytes: [UInt8]) -> RTPError? {
    do throws(RTPError) {
        _ = try RTPPacket(parsing: bytes)
        return nil
    } catch {
        return error
    }
}
