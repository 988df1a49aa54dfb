import WireKit

/// An owned RTP packet (RFC 3550 §5.1): header fields, CSRCs, decoded header extension and a
/// copy of the payload. Convenient for tests, tools and low-rate paths; the forwarding path uses
/// `RTPPacketView` and `RTPHeaderRewriter`, which never copy.
public struct RTPPacket: Sendable, Hashable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// Contributing sources; at most 15 are written (the CC field is 4 bits).
    public var csrcs: [UInt32]
    public var headerExtension: RTPHeaderExtension?
    public var payload: [UInt8]
    /// Padding bytes to append, the count byte included; 0 means no padding (P bit clear).
    /// Padding content is not kept: serializing writes zeros then the count.
    public var paddingCount: UInt8

    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32,
                ssrc: UInt32, csrcs: [UInt32] = [], headerExtension: RTPHeaderExtension? = nil,
                payload: [UInt8] = [], paddingCount: UInt8 = 0) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
        self.payload = payload
        self.paddingCount = paddingCount
    }

    /// Copies a validated view out, decoding RFC 8285 elements (which may still be malformed).
    public init(_ view: RTPPacketView) throws(RTPError) {
        marker = view.marker
        payloadType = view.payloadType
        sequenceNumber = view.sequenceNumber
        timestamp = view.timestamp
        ssrc = view.ssrc
        var csrcs: [UInt32] = []
        csrcs.reserveCapacity(view.csrcCount)
        for i in 0..<view.csrcCount { csrcs.append(view.csrc(at: i)) }
        self.csrcs = csrcs
        if let profile = view.extensionProfile, let data = view.extensionData {
            headerExtension = try RTPHeaderExtension(profile: profile, data: data)
        } else {
            headerExtension = nil
        }
        payload = Array(view.payload)
        paddingCount = UInt8(truncatingIfNeeded: view.paddingCount)
    }

    /// Parses one RTP packet occupying all of `bytes`.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        try self.init(RTPPacketView(bytes))
    }

    /// Parses one RTP packet occupying all of `bytes`.
    public init(parsing bytes: some Collection<UInt8>) throws(RTPError) {
        let parse = { (buffer: UnsafeBufferPointer<UInt8>) in
            Result { () throws(RTPError) in try RTPPacket(parsing: UnsafeRawBufferPointer(buffer)) }
        }
        let result = bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)
        self = try result.get()
    }

    /// The 12-byte fixed header, CSRCs and header extension.
    public var headerSize: Int {
        12 + 4 * min(csrcs.count, 15) + (headerExtension?.serializedSize ?? 0)
    }

    /// Bytes `serialize` writes.
    public var serializedSize: Int { headerSize + payload.count + Int(paddingCount) }

    /// Appends the packet to a writer (reserve capacity or reuse it with `reset()` to stay allocation-free).
    public func serialize(into writer: inout ByteWriter) {
        write(to: &writer)
    }

    /// Appends the packet to `out`.
    public func serialize(into out: inout [UInt8]) {
        let start = out.count
        let size = serializedSize
        out.append(contentsOf: repeatElement(0, count: size))
        out.withUnsafeMutableBytes { raw in
            var cursor = RTPBufferCursor(buffer: raw, offset: start)
            write(to: &cursor)
        }
    }

    /// Writes the packet at the start of a caller-provided buffer and returns the bytes written.
    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let size = serializedSize
        guard buffer.count >= size else { throw .bufferTooSmall(needed: size, available: buffer.count) }
        var cursor = RTPBufferCursor(buffer: buffer, offset: 0)
        write(to: &cursor)
        return size
    }

    /// The serialized packet.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(serializedSize)
        serialize(into: &out)
        return out
    }

    private func write(to out: inout some RTPByteSink) {
        let cc = min(csrcs.count, 15)
        var first: UInt8 = 0x80 | UInt8(cc)
        if paddingCount > 0 { first |= 0x20 }
        if headerExtension != nil { first |= 0x10 }
        out.put8(first)
        out.put8((marker ? 0x80 : 0) | payloadType & 0x7F)
        out.put16(sequenceNumber)
        out.put32(timestamp)
        out.put32(ssrc)
        for csrc in csrcs.prefix(cc) { out.put32(csrc) }
        headerExtension?.write(to: &out)
        out.put(payload)
        if paddingCount > 0 {
            out.putZeros(Int(paddingCount) - 1)
            out.put8(paddingCount)
        }
    }
}
