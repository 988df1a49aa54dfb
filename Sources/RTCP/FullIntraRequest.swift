import WireKit

/// Full intra request, PSFB FMT 4 (RFC 5104 §4.3.1): asks each listed sender for a decoder
/// refresh point. The common header's media SSRC is unused (§4.3.1.2) and kept as read.
public struct FullIntraRequest: RTCPMessage {
    /// One FCI entry: the target SSRC and a command sequence number (§4.3.1.1).
    public struct Entry: Sendable, Hashable {
        public var ssrc: UInt32
        /// Incremented for each new request to the same SSRC (mod 256); repeats are retransmissions.
        public var sequenceNumber: UInt8

        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public static let format: UInt8 = 4

    public var senderSSRC: UInt32
    /// Unused by FIR and normally 0 (§4.3.1.2).
    public var mediaSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(packet, type: .payloadFeedback, count: Self.format)
        var r = body
        senderSSRC = try r.u32()
        mediaSSRC = try r.u32()
        // Each entry is SSRC (32), Seq nr. (8), Reserved (24).
        guard r.remaining % 8 == 0 else { throw .invalidLength(8 + r.remaining) }
        var entries: [Entry] = []
        while r.remaining > 0 {
            let ssrc = try r.u32()
            let seq = try r.u8()
            try r.skip(3)
            entries.append(Entry(ssrc: ssrc, sequenceNumber: seq))
        }
        self.entries = entries
    }

    public var serializedSize: Int { 12 + 8 * entries.count }

    public func serialize(into w: inout ByteWriter) {
        RTCPHeader.write(count: Self.format, type: .payloadFeedback, size: serializedSize, into: &w)
        w.writeUInt32(senderSSRC)
        w.writeUInt32(mediaSSRC)
        for entry in entries {
            w.writeUInt32(entry.ssrc)
            w.writeUInt8(entry.sequenceNumber)
            w.writeZeros(3)
        }
    }
}
