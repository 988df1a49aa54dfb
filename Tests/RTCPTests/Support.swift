import RTCP
import Testing

/// The error `parse` throws, or nil if it succeeds.
func parseError(_ parse: () throws(RTCPError) -> Void) -> RTCPError? {
    do throws(RTCPError) {
        try parse()
        return nil
    } catch {
        return error
    }
}

/// The error parsing `bytes` as a compound packet throws, or nil.
func compoundError(_ bytes: [UInt8]) -> RTCPError? {
    parseError { () throws(RTCPError) in _ = try RTCPPacket.parseCompound(bytes) }
}

/// Parses `bytes` as one message and checks that re-serializing gives `bytes` back (or, when
/// `exact` is false, bytes that parse to the same value), with `serializedSize` matching.
@discardableResult
func roundTrip<M: RTCPMessage>(_ type: M.Type, _ bytes: [UInt8], exact: Bool = true,
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> M {
    let message = try M(parsing: bytes)
    let again = message.serialized
    if exact { #expect(again == bytes, sourceLocation: sourceLocation) }
    #expect(try M(parsing: again) == message, sourceLocation: sourceLocation)
    #expect(again.count == message.serializedSize, sourceLocation: sourceLocation)
    // The dispatcher picks the same type.
    #expect(try RTCPPacket(parsing: bytes).message as? M == message, sourceLocation: sourceLocation)
    return message
}

/// Big-endian bytes of a 32-bit value.
func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
}
