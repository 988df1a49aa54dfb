/// Reading and building transport-wide CC feedback in terms of packets and arrival times.
extension TransportLayerCC {
    /// One packet's outcome, as expanded from the chunks and deltas.
    public struct PacketResult: Sendable, Hashable {
        public var sequenceNumber: UInt16
        public var status: PacketStatus
        /// Delta in 250 µs units; nil for packets not received.
        public var receiveDelta: Int16?
        /// Arrival time in µs on the feedback sender's clock (reference time × 64 000 plus the
        /// running sum of deltas); nil for packets not received.
        public var arrivalTime: Int64?
    }

    /// Microseconds per reference-time unit (§3.1: multiples of 64 ms).
    public static let referenceTimeUnit: Int64 = 64_000
    /// Microseconds per receive-delta unit (§3.1.5: multiples of 250 µs).
    public static let deltaUnit: Int64 = 250

    /// Every packet from `baseSequenceNumber` on, wrapping past 65535, with its status and time.
    public var packetResults: [PacketResult] {
        var results: [PacketResult] = []
        results.reserveCapacity(Int(packetStatusCount))
        var seq = baseSequenceNumber
        var time = Int64(referenceTime) * Self.referenceTimeUnit
        var next = 0
        Self.forEachStatus(chunks, count: Int(packetStatusCount)) { status in
            var result = PacketResult(sequenceNumber: seq, status: status, receiveDelta: nil, arrivalTime: nil)
            if status.deltaSize > 0, next < receiveDeltas.count {
                let delta = receiveDeltas[next]
                next += 1
                time += Int64(delta) * Self.deltaUnit
                result.receiveDelta = delta
                result.arrivalTime = time
            }
            results.append(result)
            seq &+= 1
        }
        return results
    }

    /// Builds feedback for consecutive transport-wide sequence numbers starting at
    /// `baseSequenceNumber`: `arrivals[i]` is when packet base + i arrived, in µs on the
    /// receiver's clock, or nil if it was lost.
    ///
    /// The reference time is the first arrival rounded down to 64 ms (unless given); each delta is
    /// rounded to 250 µs against the running quantized time, so rounding never accumulates.
    /// Throws `.cannotEncode` for more than 65535 packets, arrivals before the reference time
    /// by more than 8 s, or gaps over 8 s (both exceed a 16-bit delta); split the feedback then.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, feedbackPacketCount: UInt8, baseSequenceNumber: UInt16,
                referenceTime: Int32? = nil, arrivals: [Int64?]) throws(RTCPError) {
        guard arrivals.count <= 0xFFFF else { throw .cannotEncode("\(arrivals.count) packets in one feedback") }
        let firstArrival = arrivals.lazy.compactMap { $0 }.first ?? 0
        let floorDiv = firstArrival >= 0 ? firstArrival / Self.referenceTimeUnit
            : -((-firstArrival + Self.referenceTimeUnit - 1) / Self.referenceTimeUnit)
        let reference = referenceTime ?? Int32(truncatingIfNeeded: floorDiv)
        var time = Int64(reference) * Self.referenceTimeUnit
        var statuses: [PacketStatus] = []
        statuses.reserveCapacity(arrivals.count)
        var deltas: [Int16] = []
        for arrival in arrivals {
            guard let arrival else {
                statuses.append(.notReceived)
                continue
            }
            let diff = arrival - time
            let ticks = (diff >= 0 ? diff + Self.deltaUnit / 2 : diff - Self.deltaUnit / 2) / Self.deltaUnit
            guard let delta = Int16(exactly: ticks) else {
                throw .cannotEncode("receive delta of \(diff) µs")
            }
            statuses.append((0...255).contains(delta) ? .receivedSmallDelta : .receivedLargeDelta)
            deltas.append(delta)
            time += Int64(delta) * Self.deltaUnit
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: baseSequenceNumber,
                  packetStatusCount: UInt16(arrivals.count), referenceTime: Int32(bitPattern: UInt32(bitPattern: reference) << 8) >> 8,
                  feedbackPacketCount: feedbackPacketCount, chunks: Self.encodeChunks(statuses),
                  receiveDeltas: deltas)
    }

    /// Packs statuses into chunks greedily (§3.1.3–§3.1.4): a run-length chunk for runs of 14 or
    /// more (or 7+ that need two bits), a 1-bit vector when the next 14 need no large deltas,
    /// else a 2-bit vector of 7. The last vector is padded with "not received" symbols.
    public static func encodeChunks(_ statuses: [PacketStatus]) -> [Chunk] {
        var chunks: [Chunk] = []
        var i = 0
        while i < statuses.count {
            var run = 1
            while i + run < statuses.count, statuses[i + run] == statuses[i], run < 0x1FFF { run += 1 }
            let window = statuses[i..<min(i + 14, statuses.count)]
            let fitsOneBit = window.allSatisfy { $0 == .notReceived || $0 == .receivedSmallDelta }
            if run >= 14 || (run >= 7 && !fitsOneBit) {
                chunks.append(.runLength(statuses[i], length: UInt16(run)))
                i += run
            } else if fitsOneBit {
                var symbols = Array(window)
                symbols += repeatElement(.notReceived, count: 14 - symbols.count)
                chunks.append(.oneBitVector(symbols))
                i += 14
            } else {
                var symbols = Array(statuses[i..<min(i + 7, statuses.count)])
                symbols += repeatElement(.notReceived, count: 7 - symbols.count)
                chunks.append(.twoBitVector(symbols))
                i += 7
            }
        }
        return chunks
    }
}
