import WireKit

/// Generic NACK, RTPFB FMT 1 (RFC 4585 §6.2.1): lost RTP packets as (PID, BLP) pairs.
public struct TransportLayerNACK: RTCPMessage {
    /// One FCI entry: a lost packet id and a bitmask of the 16 packets after it that were lost too.
    public struct Pair: Sendable, Hashable {
        /// PID: the sequence number of a lost packet.
        public var packetID: UInt16
        /// BLP: bit i set means packet `packetID + i + 1` is lost too (§6.2.1).
        public var lostPackets: UInt16

        public init(packetID: UInt16, lostPackets: UInt16 = 0) {
            self.packetID = packetID
            self.lostPackets = lostPackets
        }

        /// Calls `body` with each sequence number this pair reports, in order, wrapping past 65535.
        public func forEachSequenceNumber(_ body: (UInt16) -> Void) {
            body(packetID)
            var mask = lostPackets
            var i: UInt16 = 1
            while mask != 0 {
                if mask & 1 != 0 { body(packetID &+ i) }
                mask >>= 1
                i += 1
            }
        }

        /// The sequence numbers this pair reports.
        public var sequenceNumbers: [UInt16] {
            var out: [UInt16] = []
            forEachSequenceNumber { out.append($0) }
            return out
        }
    }

    public static let format: UInt8 = 1

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var pairs: [Pair]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: [Pair]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Builds the pairs for a list of lost sequence numbers, given in sending order (RFC 1982
    /// order, so a list crossing 65535 → 0 packs into the same pair).
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: [UInt16]) {
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: Self.pairs(for: lostSequenceNumbers))
    }

    /// Packs sequence numbers into (PID, BLP) pairs: each starts a pair unless it lies 1–16
    /// after the current pair's PID.
    public static func pairs(for sequenceNumbers: [UInt16]) -> [Pair] {
        var pairs: [Pair] = []
        for seq in sequenceNumbers {
            if let last = pairs.last {
                let distance = seq &- last.packetID
                if distance == 0 { continue }
                if distance <= 16 {
                    pairs[pairs.count - 1].lostPackets |= 1 << (distance - 1)
                    continue
                }
            }
            pairs.append(Pair(packetID: seq))
        }
        return pairs
    }

    /// Every sequence number reported, pair by pair.
    public var lostSequenceNumbers: [UInt16] {
        var out: [UInt16] = []
        for pair in pairs { pair.forEachSequenceNumber { out.append($0) } }
        return out
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(packet, type: .transportFeedback, count: Self.format)
        var r = body
        senderSSRC = try r.u32()
        mediaSSRC = try r.u32()
        guard r.remaining % 4 == 0 else { throw .invalidLength(r.remaining) }
        var pairs: [Pair] = []
        pairs.reserveCapacity(r.remaining / 4)
        while r.remaining > 0 { pairs.append(Pair(packetID: try r.u16(), lostPackets: try r.u16())) }
        self.pairs = pairs
    }

    public var serializedSize: Int { 12 + 4 * pairs.count }

    public func serialize(into w: inout ByteWriter) {
        RTCPHeader.write(count: Self.format, type: .transportFeedback, size: serializedSize, into: &w)
        w.writeUInt32(senderSSRC)
        w.writeUInt32(mediaSSRC)
        for pair in pairs {
            w.writeUInt16(pair.packetID)
            w.writeUInt16(pair.lostPackets)
        }
    }
}
