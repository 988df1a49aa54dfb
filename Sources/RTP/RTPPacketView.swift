/// A validated, zero-copy view of one RTP packet (RFC 3550 §5.1) in a caller's buffer.
///
/// Making a view checks every length (fixed header, CSRC list, header extension, padding) once;
/// the accessors then read fields straight from the buffer, so the forwarding path allocates
/// nothing. The view is only valid while the buffer it was made from is.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// |                           timestamp                           |
/// |           synchronization source (SSRC) identifier            |
/// |            contributing source (CSRC) identifiers             |
/// ```
public struct RTPPacketView {
    /// The whole packet, as passed in.
    public let bytes: UnsafeRawBufferPointer
    /// Bytes before the payload: fixed header, CSRCs and header extension.
    public let headerSize: Int
    /// Where the payload sits in `bytes` (padding excluded).
    public let payloadRange: Range<Int>
    /// Where the header extension's data sits in `bytes` (after its 4-byte header), if X is set.
    public let extensionRange: Range<Int>?

    /// Validates `bytes` as an RTP packet.
    public init(_ bytes: UnsafeRawBufferPointer) throws(RTPError) {
        guard bytes.count >= 12 else { throw .truncated(needed: 12, available: bytes.count) }
        let first = bytes[0]
        guard first >> 6 == 2 else { throw .unsupportedVersion(first >> 6) }
        var offset = 12 + Int(first & 0x0F) * 4
        guard bytes.count >= offset else { throw .truncated(needed: offset, available: bytes.count) }
        if first & 0x10 != 0 {
            // §5.3.1: 16-bit profile, 16-bit length in 32-bit words, then the data.
            guard bytes.count >= offset + 4 else { throw .truncated(needed: offset + 4, available: bytes.count) }
            let declared = (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) * 4
            let start = offset + 4
            guard declared <= bytes.count - start else {
                throw .extensionPastEnd(declared: declared, available: bytes.count - start)
            }
            extensionRange = start..<start + declared
            offset = start + declared
        } else {
            extensionRange = nil
        }
        var end = bytes.count
        if first & 0x20 != 0 {
            // §5.1: the last octet counts the padding, itself included.
            let count = Int(bytes[bytes.count - 1])
            guard count >= 1, count <= bytes.count - offset else {
                throw .invalidPadding(count: count, available: bytes.count - offset)
            }
            end -= count
        }
        self.bytes = bytes
        headerSize = offset
        payloadRange = offset..<end
    }

    public var version: UInt8 { bytes[0] >> 6 }
    /// The P bit: the packet ends in padding.
    public var hasPadding: Bool { bytes[0] & 0x20 != 0 }
    /// The X bit: a header extension follows the CSRCs.
    public var hasExtension: Bool { bytes[0] & 0x10 != 0 }
    /// The CC field: how many CSRC identifiers follow the fixed header.
    public var csrcCount: Int { Int(bytes[0] & 0x0F) }
    public var marker: Bool { bytes[1] & 0x80 != 0 }
    public var payloadType: UInt8 { bytes[1] & 0x7F }
    public var sequenceNumber: UInt16 { RTPBytes.load16(bytes, 2) }
    public var timestamp: UInt32 { RTPBytes.load32(bytes, 4) }
    public var ssrc: UInt32 { RTPBytes.load32(bytes, 8) }

    /// The `index`th CSRC; `index` must be below `csrcCount`.
    public func csrc(at index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        return RTPBytes.load32(bytes, 12 + 4 * index)
    }

    /// Number of padding bytes at the end (0 without the P bit).
    public var paddingCount: Int { bytes.count - payloadRange.upperBound }

    /// The payload, without copying.
    public var payload: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[payloadRange]) }

    /// The header extension's profile field (0xBEDE, 0x100X, or another profile), if X is set.
    public var extensionProfile: UInt16? {
        guard let range = extensionRange else { return nil }
        return RTPBytes.load16(bytes, range.lowerBound - 4)
    }

    /// The header extension's data (after its 4-byte header), without copying.
    public var extensionData: UnsafeRawBufferPointer? {
        extensionRange.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
    }

    /// The RFC 8285 elements of the header extension; empty without one or for another profile.
    public var extensionElements: RTPExtensionElementIterator {
        guard let range = extensionRange, let profile = extensionProfile else {
            return RTPExtensionElementIterator(data: UnsafeRawBufferPointer(start: nil, count: 0), form: .oneByte)
        }
        return RTPExtensionElementIterator(data: UnsafeRawBufferPointer(rebasing: bytes[range]),
                                           form: RTPExtensionForm(profile: profile))
    }

    /// The data of the first RFC 8285 element with this id, without copying.
    public func extensionElement(id: UInt8) -> UnsafeRawBufferPointer? {
        for element in extensionElements where element.id == id { return element.data }
        return nil
    }
}

/// Big-endian loads and stores at offsets the caller has already bounds-checked.
enum RTPBytes {
    @inline(__always)
    static func load16(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt16 {
        UInt16(b[i]) << 8 | UInt16(b[i + 1])
    }

    @inline(__always)
    static func load32(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    @inline(__always)
    static func store16(_ v: UInt16, _ b: UnsafeMutableRawBufferPointer, _ i: Int) {
        b[i] = UInt8(truncatingIfNeeded: v >> 8)
        b[i + 1] = UInt8(truncatingIfNeeded: v)
    }

    @inline(__always)
    static func store32(_ v: UInt32, _ b: UnsafeMutableRawBufferPointer, _ i: Int) {
        b[i] = UInt8(truncatingIfNeeded: v >> 24)
        b[i + 1] = UInt8(truncatingIfNeeded: v >> 16)
        b[i + 2] = UInt8(truncatingIfNeeded: v >> 8)
        b[i + 3] = UInt8(truncatingIfNeeded: v)
    }
}
