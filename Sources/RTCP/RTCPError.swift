import WireKit

/// Why an RTCP packet was refused, or a feedback message could not be built.
///
/// One error enum for the target (like pion's `rtcp: errors.go`); parsers never trap.
public enum RTCPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input ended before a field it announced.
    case truncated(needed: Int, available: Int)
    /// The version field is not 2 (RFC 3550 §6.4.1).
    case unsupportedVersion(UInt8)
    /// The length field announces more bytes than remain (§6.4.1: length in 32-bit words minus one).
    case lengthPastEnd(declared: Int, available: Int)
    /// A single packet was expected but the buffer holds more than its length field announces.
    case trailingBytes(declared: Int, actual: Int)
    /// The P bit is set but the pad count is zero, not a multiple of four, or too large (§6.4.1).
    case invalidPadding(count: Int, available: Int)
    /// A message type was asked to parse a packet of another type or format.
    case wrongPacketType(packetType: UInt8, count: UInt8)
    /// A count field (RC, SC, REMB's Num SSRC) disagrees with the bytes present.
    case countMismatch(count: Int, available: Int)
    /// The packet's body size does not fit its type's layout (e.g. a PLI with FCI, a FIR entry cut short).
    case invalidLength(Int)
    /// An SDES item or chunk runs past the end, or a chunk lacks its terminating null octet (§6.5).
    case malformedSourceDescription
    /// A BYE reason's length runs past the end of the packet (§6.6).
    case byeReasonPastEnd
    /// A payload-specific feedback with FMT 15 whose unique identifier is not "REMB".
    case notREMB
    /// Transport-wide CC: packet status chunks run past the end of the packet.
    case twccChunkOverflow
    /// Transport-wide CC: receive deltas run past the end of the packet.
    case twccDeltaOverflow
    /// A builder was given a value the wire format cannot carry.
    case cannotEncode(String)

    /// Maps a `ByteReader` failure (in practice only `.truncated`).
    init(_ error: WireError) {
        switch error {
        case .truncated(let needed, let available): self = .truncated(needed: needed, available: available)
        case .malformed(let why): self = .cannotEncode(why)
        }
    }

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "rtcp: truncated: needed \(needed) bytes, \(available) left"
        case .unsupportedVersion(let v): "rtcp: unsupported version \(v)"
        case .lengthPastEnd(let declared, let available): "rtcp: length \(declared) past end (\(available) left)"
        case .trailingBytes(let declared, let actual): "rtcp: packet of \(declared) bytes in a buffer of \(actual)"
        case .invalidPadding(let count, let available): "rtcp: pad count \(count) with \(available) body bytes"
        case .wrongPacketType(let type, let count): "rtcp: unexpected packet type \(type) count/format \(count)"
        case .countMismatch(let count, let available): "rtcp: count \(count) does not fit \(available) bytes"
        case .invalidLength(let length): "rtcp: body length \(length) does not fit the packet type"
        case .malformedSourceDescription: "rtcp: malformed SDES chunk"
        case .byeReasonPastEnd: "rtcp: BYE reason past end"
        case .notREMB: "rtcp: application-layer feedback is not REMB"
        case .twccChunkOverflow: "rtcp: transport-cc status chunks past end"
        case .twccDeltaOverflow: "rtcp: transport-cc receive deltas past end"
        case .cannotEncode(let why): "rtcp: cannot encode: \(why)"
        }
    }
}

/// ByteReader with its errors mapped to `RTCPError`, so message parsers throw one type.
struct RTCPReader {
    var base: ByteReader

    init(_ bytes: UnsafeRawBufferPointer) { base = ByteReader(bytes) }

    var remaining: Int { base.remaining }
    var offset: Int { base.offset }

    mutating func u8() throws(RTCPError) -> UInt8 {
        do { return try base.readUInt8() } catch { throw RTCPError(error) }
    }

    mutating func u16() throws(RTCPError) -> UInt16 {
        do { return try base.readUInt16() } catch { throw RTCPError(error) }
    }

    mutating func u24() throws(RTCPError) -> UInt32 {
        do { return try base.readUInt24() } catch { throw RTCPError(error) }
    }

    mutating func u32() throws(RTCPError) -> UInt32 {
        do { return try base.readUInt32() } catch { throw RTCPError(error) }
    }

    mutating func u64() throws(RTCPError) -> UInt64 {
        do { return try base.readUInt64() } catch { throw RTCPError(error) }
    }

    mutating func bytes(_ count: Int) throws(RTCPError) -> [UInt8] {
        do { return try base.readBytes(count) } catch { throw RTCPError(error) }
    }

    mutating func skip(_ count: Int) throws(RTCPError) {
        do { try base.skip(count) } catch { throw RTCPError(error) }
    }

    mutating func rest() -> [UInt8] {
        (try? base.readBytes(base.remaining)) ?? []
    }
}
