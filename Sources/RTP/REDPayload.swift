/// Why a RED payload (RFC 2198) was refused by the parser or cannot be built.
public enum REDError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The payload has no bytes at all, so not even the primary's header.
    case empty
    /// A block header starting at `offset` runs past the end (§3: 4 bytes with F=1, 1 byte with F=0).
    case truncatedHeader(offset: Int)
    /// More blocks than `REDPayloadView.maxBlocks` (the primary included).
    case tooManyBlocks(limit: Int)
    /// The redundant blocks' lengths add up to more than the bytes after the headers.
    case blocksPastEnd(declared: Int, available: Int)
    /// Builder: a timestamp offset does not fit the 14-bit field (§3).
    case timestampOffsetTooLarge(UInt32)
    /// Builder: a redundant block does not fit the 10-bit length field (§3).
    case blockTooLong(Int)
    /// Builder: a payload type above 127.
    case invalidPayloadType(UInt8)
    /// Builder: `finish` came after a different number of redundant blocks than announced.
    case blockCountMismatch(expected: Int, added: Int)
    /// Builder: the caller's buffer cannot hold the payload.
    case bufferTooSmall(needed: Int, available: Int)

    public var description: String {
        switch self {
        case .empty: "red: empty payload"
        case .truncatedHeader(let offset): "red: block header at \(offset) runs past the end"
        case .tooManyBlocks(let limit): "red: more than \(limit) blocks"
        case .blocksPastEnd(let declared, let available): "red: blocks of \(declared) bytes, \(available) left"
        case .timestampOffsetTooLarge(let offset): "red: timestamp offset \(offset) exceeds 14 bits"
        case .blockTooLong(let length): "red: redundant block of \(length) bytes exceeds 10 bits"
        case .invalidPayloadType(let pt): "red: payload type \(pt) exceeds 7 bits"
        case .blockCountMismatch(let expected, let added): "red: \(added) redundant blocks, announced \(expected)"
        case .bufferTooSmall(let needed, let available): "red: buffer of \(available) bytes, need \(needed)"
        }
    }
}

/// One block of a RED payload: a redundant encoding of an earlier frame, or the primary.
public struct REDBlock {
    /// The block PT: the payload type of the encoding inside (§3).
    public let payloadType: UInt8
    /// How far the block's timestamp lies before the RTP header's (14 bits; 0 for the primary).
    public let timestampOffset: UInt16
    /// True for the last block, whose header has F=0 and whose timestamp is the header's.
    public let isPrimary: Bool
    /// The encoded data, inside the buffer the view was made from.
    public let data: UnsafeRawBufferPointer

    /// The block's RTP timestamp given the packet's (serial arithmetic wraps at 2^32).
    public func timestamp(packetTimestamp: UInt32) -> UInt32 { packetTimestamp &- UInt32(timestampOffset) }
}

/// A validated, non-allocating view of an RTP payload for redundant audio (RFC 2198 §3).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |F|   block PT  |  timestamp offset         |   block length    |   F=1: redundant
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0|   block PT  |                                                   F=0: the primary, last
/// +-+-+-+-+-+-+-+-+
/// ```
/// The headers come first, oldest block first; the blocks' data follows in the same order and the
/// primary takes whatever remains. The view is valid while the buffer it was made from is.
public struct REDPayloadView: RandomAccessCollection {
    /// Blocks a view holds, the primary included (browsers send at most 1–2 redundant blocks).
    public static let maxBlocks = 8

    private struct Descriptor {
        var payloadType: UInt8
        var timestampOffset: UInt16
        var range: Range<Int>
    }

    /// The whole RED payload, as passed in.
    public let bytes: UnsafeRawBufferPointer
    /// Number of blocks, the primary included (at least 1).
    public let count: Int
    private let descriptors: InlineArray<8, Descriptor>

    /// Validates `payload` (the RTP payload, padding excluded) as RED blocks.
    public init(_ payload: UnsafeRawBufferPointer) throws(REDError) {
        guard !payload.isEmpty else { throw .empty }
        var descriptors = InlineArray<8, Descriptor>(repeating: Descriptor(payloadType: 0, timestampOffset: 0, range: 0..<0))
        var offset = 0
        var blocks = 0
        var redundantBytes = 0
        while true {
            guard offset < payload.count else { throw .truncatedHeader(offset: offset) }
            guard blocks < Self.maxBlocks else { throw .tooManyBlocks(limit: Self.maxBlocks) }
            let first = payload[offset]
            if first & 0x80 == 0 {
                descriptors[blocks] = Descriptor(payloadType: first, timestampOffset: 0, range: 0..<0)
                blocks += 1
                offset += 1
                break
            }
            guard payload.count - offset >= 4 else { throw .truncatedHeader(offset: offset) }
            // §3: 7-bit PT, 14-bit timestamp offset, 10-bit block length.
            let b1 = UInt16(payload[offset + 1]), b2 = UInt16(payload[offset + 2]), b3 = UInt16(payload[offset + 3])
            let tsOffset = b1 << 6 | b2 >> 2
            let length = Int((b2 & 0x03) << 8 | b3)
            descriptors[blocks] = Descriptor(payloadType: first & 0x7F, timestampOffset: tsOffset,
                                             range: redundantBytes..<redundantBytes + length)
            redundantBytes += length
            blocks += 1
            offset += 4
        }
        let available = payload.count - offset
        guard redundantBytes <= available else { throw .blocksPastEnd(declared: redundantBytes, available: available) }
        // Data ranges were relative to the end of the headers; make them absolute.
        for i in 0..<blocks - 1 {
            let r = descriptors[i].range
            descriptors[i].range = offset + r.lowerBound..<offset + r.upperBound
        }
        descriptors[blocks - 1].range = offset + redundantBytes..<payload.count
        self.descriptors = descriptors
        bytes = payload
        count = blocks
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The `index`th block, oldest redundant first, the primary last.
    public subscript(index: Int) -> REDBlock {
        precondition(index >= 0 && index < count, "RED block index out of range")
        let d = descriptors[index]
        return REDBlock(payloadType: d.payloadType, timestampOffset: d.timestampOffset,
                        isPrimary: index == count - 1, data: UnsafeRawBufferPointer(rebasing: bytes[d.range]))
    }

    /// The primary encoding (the last block).
    public var primary: REDBlock { self[count - 1] }

    /// Number of redundant blocks before the primary.
    public var redundantCount: Int { count - 1 }
}

/// Writes a RED payload (RFC 2198 §3) into a caller's buffer without allocating: announce how
/// many redundant blocks follow, append them oldest first, then `finish` with the primary.
///
/// ```swift
/// var builder = try REDPayloadBuilder(into: buffer, redundantCount: 1)
/// try builder.appendRedundant(payloadType: 111, timestampOffset: 960, data: previous)
/// let length = try builder.finish(primaryPayloadType: 111, primary: current)
/// ```
public struct REDPayloadBuilder {
    /// Largest timestamp offset the 14-bit field carries.
    public static let maxTimestampOffset: UInt32 = 0x3FFF
    /// Largest redundant block the 10-bit length field carries.
    public static let maxBlockLength = 0x3FF

    private let buffer: UnsafeMutableRawBufferPointer
    private let redundantCount: Int
    private var added = 0
    private var dataOffset: Int

    /// Bytes a payload of redundant blocks of `redundantLengths` plus a primary of `primaryLength` takes.
    public static func serializedSize(redundantLengths: some Sequence<Int>, primaryLength: Int) -> Int {
        var size = 1 + primaryLength
        for length in redundantLengths { size += 4 + length }
        return size
    }

    /// Starts a payload of `redundantCount` redundant blocks (0 up to `REDPayloadView.maxBlocks - 1`).
    public init(into buffer: UnsafeMutableRawBufferPointer, redundantCount: Int) throws(REDError) {
        guard redundantCount >= 0, redundantCount < REDPayloadView.maxBlocks else {
            throw .tooManyBlocks(limit: REDPayloadView.maxBlocks)
        }
        let headers = 4 * redundantCount + 1
        guard buffer.count >= headers else { throw .bufferTooSmall(needed: headers, available: buffer.count) }
        self.buffer = buffer
        self.redundantCount = redundantCount
        dataOffset = headers
    }

    /// Appends the next redundant block (oldest first), `timestampOffset` before the primary.
    public mutating func appendRedundant(payloadType: UInt8, timestampOffset: UInt32,
                                         data: UnsafeRawBufferPointer) throws(REDError) {
        guard added < redundantCount else { throw .blockCountMismatch(expected: redundantCount, added: added + 1) }
        guard payloadType <= 0x7F else { throw .invalidPayloadType(payloadType) }
        guard timestampOffset <= Self.maxTimestampOffset else { throw .timestampOffsetTooLarge(timestampOffset) }
        guard data.count <= Self.maxBlockLength else { throw .blockTooLong(data.count) }
        let needed = dataOffset + data.count
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        let header = 4 * added
        buffer[header] = 0x80 | payloadType
        buffer[header + 1] = UInt8(truncatingIfNeeded: timestampOffset >> 6)
        buffer[header + 2] = UInt8(truncatingIfNeeded: timestampOffset << 2) | UInt8(truncatingIfNeeded: data.count >> 8)
        buffer[header + 3] = UInt8(truncatingIfNeeded: data.count)
        copy(data)
        added += 1
    }

    /// Writes the primary's header and data; returns the payload length.
    public mutating func finish(primaryPayloadType: UInt8, primary: UnsafeRawBufferPointer) throws(REDError) -> Int {
        guard added == redundantCount else { throw .blockCountMismatch(expected: redundantCount, added: added) }
        guard primaryPayloadType <= 0x7F else { throw .invalidPayloadType(primaryPayloadType) }
        let needed = dataOffset + primary.count
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        buffer[4 * redundantCount] = primaryPayloadType
        copy(primary)
        return dataOffset
    }

    private mutating func copy(_ data: UnsafeRawBufferPointer) {
        guard !data.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[dataOffset..<dataOffset + data.count]).copyMemory(from: data)
        dataOffset += data.count
    }
}

/// One encoded block for the allocating convenience serializer.
public struct REDEncodedBlock: Hashable, Sendable {
    public var payloadType: UInt8
    /// Offset before the packet's timestamp (0 for the primary).
    public var timestampOffset: UInt32
    public var data: [UInt8]

    public init(payloadType: UInt8, timestampOffset: UInt32 = 0, data: [UInt8]) {
        self.payloadType = payloadType
        self.timestampOffset = timestampOffset
        self.data = data
    }
}

public enum REDPayload {
    /// Serializes `redundant` blocks (oldest first) and the `primary` into a new array (tests and
    /// setup; the media path uses `REDPayloadBuilder` with its own buffer).
    public static func serialize(redundant: [REDEncodedBlock], primary: REDEncodedBlock) throws(REDError) -> [UInt8] {
        let size = REDPayloadBuilder.serializedSize(redundantLengths: redundant.lazy.map(\.data.count),
                                                    primaryLength: primary.data.count)
        var out = [UInt8](repeating: 0, count: size)
        // The stdlib's buffer closures rethrow untyped errors, so failures leave through `failure`.
        var failure: REDError?
        let written = out.withUnsafeMutableBytes { raw -> Int in
            do throws(REDError) {
                var builder = try REDPayloadBuilder(into: raw, redundantCount: redundant.count)
                for block in redundant {
                    let result = block.data.withUnsafeBytes { data in
                        Result { () throws(REDError) in
                            try builder.appendRedundant(payloadType: block.payloadType,
                                                        timestampOffset: block.timestampOffset, data: data)
                        }
                    }
                    try result.get()
                }
                let result = primary.data.withUnsafeBytes { data in
                    Result { () throws(REDError) -> Int in
                        try builder.finish(primaryPayloadType: primary.payloadType, primary: data)
                    }
                }
                return try result.get()
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        precondition(written == size, "RED serializedSize disagrees with the builder")
        return out
    }
}
