import WireKit

/// Transport-wide congestion control feedback, RTPFB FMT 15
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): which transport-wide sequence
/// numbers arrived, and when, relative to a reference time.
///
/// Chunks and deltas are kept as on the wire so a parsed packet re-serializes unchanged; see
/// `packetResults` to read it and `init(…arrivals:)` to build one.
public struct TransportLayerCC: RTCPMessage {
    /// Per-packet status symbol (§3.1.1).
    public enum PacketStatus: UInt8, Sendable, Hashable {
        case notReceived = 0
        /// Received; the delta is one unsigned byte (0–63.75 ms).
        case receivedSmallDelta = 1
        /// Received; the delta is two signed bytes (negative or large).
        case receivedLargeDelta = 2
        /// "11 [Reserved]" (§3.1.1; the §3.1.3 example calls it "received, w/o recv delta"); no delta.
        case reserved = 3

        /// Bytes of receive delta this status carries.
        /// The status for two wire bits.
        init(bits: UInt8) {
            switch bits & 0x3 {
            case 0: self = .notReceived
            case 1: self = .receivedSmallDelta
            case 2: self = .receivedLargeDelta
            default: self = .reserved
            }
        }

        public var deltaSize: Int {
            switch self {
            case .receivedSmallDelta: 1
            case .receivedLargeDelta: 2
            case .notReceived, .reserved: 0
            }
        }
    }

    /// A packet status chunk (§3.1.3, §3.1.4).
    public enum Chunk: Sendable, Hashable {
        /// T=0: one status repeated `length` times (13 bits, up to 8191).
        case runLength(PacketStatus, length: UInt16)
        /// T=1, S=0: 14 one-bit symbols (not received / small delta); missing ones write as 0.
        case oneBitVector([PacketStatus])
        /// T=1, S=1: 7 two-bit symbols; missing ones write as 0.
        case twoBitVector([PacketStatus])

        /// Decodes the 16 bits of a chunk.
        public init(rawValue v: UInt16) {
            if v & 0x8000 == 0 {
                self = .runLength(PacketStatus(bits: UInt8(v >> 13 & 0x3)), length: v & 0x1FFF)
            } else if v & 0x4000 == 0 {
                self = .oneBitVector((0..<14).map { PacketStatus(bits: UInt8(v >> (13 - $0) & 0x1)) })
            } else {
                self = .twoBitVector((0..<7).map { PacketStatus(bits: UInt8(v >> (12 - 2 * $0) & 0x3)) })
            }
        }

        /// The 16 bits on the wire (vectors padded with "not received", fields masked to size).
        public var rawValue: UInt16 {
            switch self {
            case .runLength(let status, let length):
                return UInt16(status.rawValue) << 13 | length & 0x1FFF
            case .oneBitVector(let symbols):
                var v: UInt16 = 0x8000
                for (i, s) in symbols.prefix(14).enumerated() { v |= UInt16(s.rawValue & 1) << (13 - i) }
                return v
            case .twoBitVector(let symbols):
                var v: UInt16 = 0xC000
                for (i, s) in symbols.prefix(7).enumerated() { v |= UInt16(s.rawValue) << (12 - 2 * i) }
                return v
            }
        }

        /// How many statuses the chunk describes.
        public var capacity: Int {
            switch self {
            case .runLength(_, let length): Int(length & 0x1FFF)
            case .oneBitVector: 14
            case .twoBitVector: 7
            }
        }

        func status(at i: Int) -> PacketStatus {
            switch self {
            case .runLength(let status, _): status
            case .oneBitVector(let s): i < s.count ? PacketStatus(bits: s[i].rawValue & 1) : .notReceived
            case .twoBitVector(let s): i < s.count ? s[i] : .notReceived
            }
        }
    }

    public static let format: UInt8 = 15

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// Transport-wide sequence number of the first packet described.
    public var baseSequenceNumber: UInt16
    /// How many packets (from the base) the chunks describe.
    public var packetStatusCount: UInt16
    /// 24-bit signed reference time in multiples of 64 ms.
    public var referenceTime: Int32
    /// Counts feedback packets sent, so loss of feedback can be detected (mod 256).
    public var feedbackPacketCount: UInt8
    public var chunks: [Chunk]
    /// One delta per received status (in order), in units of 250 µs; the first is relative to the
    /// reference time, each later one to the previous received packet.
    public var receiveDeltas: [Int16]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, packetStatusCount: UInt16,
                referenceTime: Int32, feedbackPacketCount: UInt8, chunks: [Chunk], receiveDeltas: [Int16]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.chunks = chunks
        self.receiveDeltas = receiveDeltas
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        // Chrome has sent TWCC with the P bit set but no valid pad count, so the P bit only
        // licenses trailing bytes here, as in libwebrtc's and pion's parsers.
        let (header, body) = try RTCPHeader.open(packet, type: .transportFeedback, count: Self.format,
                                                 stripPadding: false)
        var r = body
        senderSSRC = try r.u32()
        mediaSSRC = try r.u32()
        baseSequenceNumber = try r.u16()
        packetStatusCount = try r.u16()
        referenceTime = Int32(bitPattern: try r.u24() << 8) >> 8
        feedbackPacketCount = try r.u8()
        // §3.1: chunks until every one of packetStatusCount packets has a status.
        var chunks: [Chunk] = []
        var covered = 0
        while covered < Int(packetStatusCount) {
            guard r.remaining >= 2 else { throw .twccChunkOverflow }
            let chunk = Chunk(rawValue: try r.u16())
            chunks.append(chunk)
            covered += chunk.capacity
        }
        self.chunks = chunks
        // §3.1.5: then one delta per received packet, 1 or 2 bytes by its status.
        var deltas: [Int16] = []
        var failed = false
        Self.forEachStatus(chunks, count: Int(packetStatusCount)) { status in
            guard !failed else { return }
            switch status {
            case .receivedSmallDelta:
                guard let v = try? r.u8() else { failed = true; return }
                deltas.append(Int16(v))
            case .receivedLargeDelta:
                guard let v = try? r.u16() else { failed = true; return }
                deltas.append(Int16(bitPattern: v))
            case .notReceived, .reserved:
                break
            }
        }
        if failed { throw .twccDeltaOverflow }
        // Only padding may follow: to the next 32-bit boundary, or anything with the P bit.
        guard r.remaining < 4 || header.padding else { throw .invalidLength(r.offset + r.remaining) }
        receiveDeltas = deltas
    }

    /// Calls `body` with the first `count` statuses the chunks describe.
    static func forEachStatus(_ chunks: [Chunk], count: Int, _ body: (PacketStatus) -> Void) {
        var left = count
        for chunk in chunks {
            let n = min(chunk.capacity, left)
            for i in 0..<n { body(chunk.status(at: i)) }
            left -= n
            if left == 0 { return }
        }
    }

    /// Bytes of receive deltas the chunks call for.
    var deltaBytes: Int {
        var total = 0
        Self.forEachStatus(chunks, count: Int(packetStatusCount)) { total += $0.deltaSize }
        return total
    }

    public var serializedSize: Int { align4(20 + 2 * chunks.count + deltaBytes) }

    public func serialize(into w: inout ByteWriter) {
        let size = serializedSize
        let start = w.count
        RTCPHeader.write(count: Self.format, type: .transportFeedback, size: size, into: &w)
        w.writeUInt32(senderSSRC)
        w.writeUInt32(mediaSSRC)
        w.writeUInt16(baseSequenceNumber)
        w.writeUInt16(packetStatusCount)
        w.writeUInt24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF)
        w.writeUInt8(feedbackPacketCount)
        for chunk in chunks { w.writeUInt16(chunk.rawValue) }
        // Deltas follow the statuses; missing ones are written as 0, oversize small ones truncated.
        var next = 0
        Self.forEachStatus(chunks, count: Int(packetStatusCount)) { status in
            guard status.deltaSize > 0 else { return }
            let delta = next < receiveDeltas.count ? receiveDeltas[next] : 0
            next += 1
            if status == .receivedSmallDelta {
                w.writeUInt8(UInt8(truncatingIfNeeded: delta))
            } else {
                w.writeUInt16(UInt16(bitPattern: delta))
            }
        }
        w.writeZeros(size - (w.count - start))
    }
}
