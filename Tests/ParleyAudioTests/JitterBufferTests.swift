import ParleyAudio
import Testing

/// A simulated sender, network and 10 ms playout clock around a `JitterBuffer`, on a virtual
/// clock. Frames are 20 ms at 48 kHz and the payload of frame `i` holds `i`, so a test sees
/// exactly which frames were played, recovered or concealed. Time stretching is simulated: one
/// 5 ms "pitch period" removed or inserted whenever asked and allowed (every frame counts as quiet
/// unless `quietFrames` is false; then only urgent requests are carried out).
struct JitterBufferHarness {
    static let rate = 48_000
    static let frame = 960
    static let pullSamples = 480
    static let period = 240

    enum Played: Equatable {
        case frame(Int), red(Int), fec(next: Int), conceal(Int), silence(Int)
    }

    struct Event {
        var played: Played
        var time: Int64
        var jitterBufferDelay: Int64?
        var playoutDelayMs: Double
        var targetDelayMs: Double
        var stretch: TimeStretchRequest = .none
    }

    struct Packet {
        var index: Int
        var sequenceNumber: UInt16
        var timestamp: UInt32
        var ssrc: UInt32 = 0x5EED
        var marker = false
        var arrival: Int64
        /// Frames repeated as RED blocks (RFC 2198), each with its timestamp.
        var redundant: [(index: Int, timestamp: UInt32)] = []
    }

    var buffer: JitterBuffer
    var events: [Event] = []
    var insertResults: [Int: JitterBufferInsertResult] = [:]
    /// Samples decided but not yet pulled.
    var held = 0
    /// Time of the next pull (µs).
    var clock: Int64 = 0
    /// Whether a stretch that is not urgent is carried out (the frame is quiet).
    var quietFrames = true

    init(_ configuration: JitterBufferConfiguration = JitterBufferConfiguration(clockRate: rate)) {
        buffer = JitterBuffer(configuration: configuration)
    }

    /// Frames `first..<first+count` sent every 20 ms of the sender's clock (`senderScale` > 1: a
    /// fast sender), arriving after `delay(i)` µs of network delay.
    static func packets(_ range: Range<Int>, firstSequence: UInt16 = 1_000, firstTimestamp: UInt32 = 90_000,
                        ssrc: UInt32 = 0x5EED, start: Int64 = 0, senderScale: Double = 1,
                        delay: (Int) -> Int64 = { _ in 50_000 }) -> [Packet] {
        range.map { i in
            let k = i - range.lowerBound
            let sent = start + Int64((Double(i) * 20_000 / senderScale).rounded())
            return Packet(index: i, sequenceNumber: firstSequence &+ UInt16(truncatingIfNeeded: k),
                          timestamp: firstTimestamp &+ UInt32(truncatingIfNeeded: i * frame), ssrc: ssrc,
                          arrival: sent + delay(i))
        }
    }

    static func payload(_ index: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: index >> 24), UInt8(truncatingIfNeeded: index >> 16),
         UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index)]
    }

    mutating func deliver(_ p: Packet) {
        let packet = JitterBufferPacket(sequenceNumber: p.sequenceNumber, timestamp: p.timestamp, ssrc: p.ssrc,
                                        marker: p.marker, payloadType: 111, arrivalTime: p.arrival,
                                        duration: Self.frame)
        let result = Self.payload(p.index).withUnsafeBytes { buffer.insert(packet, payload: $0) }
        insertResults[p.index] = result
        guard result != .duplicate else { return }
        for block in p.redundant {
            _ = Self.payload(block.index).withUnsafeBytes {
                buffer.insertRedundant(timestamp: block.timestamp, payloadType: 111, duration: Self.frame,
                                       arrivalTime: p.arrival, payload: $0)
            }
        }
    }

    /// One 10 ms pull of the device clock.
    mutating func pull() {
        while held < Self.pullSamples {
            let decision = buffer.nextFrame(at: clock)
            let played: Played
            switch decision.action {
            case .decode(let slot): played = .frame(index(slot))
            case .decodeRedundant(let slot): played = .red(index(slot))
            case .recoverFromFEC(let slot): played = .fec(next: index(slot))
            case .conceal: played = .conceal(decision.samples)
            case .silence: played = .silence(decision.samples)
            }
            var samples = decision.samples
            switch decision.timeStretch {
            case .accelerate(let max, let urgent) where max >= Self.period && (urgent || quietFrames):
                samples -= Self.period
                buffer.recordTimeStretch(samples: -Self.period)
            case .expand(let max, let urgent) where max >= Self.period && (urgent || quietFrames):
                samples += Self.period
                buffer.recordTimeStretch(samples: Self.period)
            default: break
            }
            events.append(Event(played: played, time: clock, jitterBufferDelay: decision.jitterBufferDelay,
                                playoutDelayMs: buffer.currentDelayMs, targetDelayMs: buffer.targetDelayMs,
                                stretch: decision.timeStretch))
            held += samples
        }
        held -= Self.pullSamples
        clock += 10_000
    }

    /// Delivers `packets` in arrival order (stable for ties) with pulls every 10 ms in between,
    /// then pulls until `end`, or without an end until the last frame held has been decided (so
    /// the end of the stream is not concealed).
    mutating func run(_ packets: [Packet], until end: Int64? = nil) {
        let ordered = packets.enumerated().sorted { ($0.element.arrival, $0.offset) < ($1.element.arrival, $1.offset) }
        for (_, packet) in ordered {
            while clock < packet.arrival { pull() }
            deliver(packet)
        }
        if let end {
            while clock < end { pull() }
        } else {
            while buffer.statistics.bufferedMs > 0 { pull() }
        }
    }

    private func index(_ slot: JitterBufferSlot) -> Int {
        buffer.withPayload(slot) { p in p.reduce(0) { $0 << 8 | Int($1) } }
    }

    /// Frames played from their own packet, in order.
    var decodedFrames: [Int] { events.compactMap { if case .frame(let i) = $0.played { i } else { nil } } }
    /// Every frame heard from received data: own packet, RED copy, or FEC (the frame before `next`).
    var heardFrames: [Int] {
        events.compactMap {
            switch $0.played {
            case .frame(let i), .red(let i): i
            case .fec(let next): next - 1
            default: nil
            }
        }
    }
    /// Samples concealed before the last frame heard (not the tail after the stream ended).
    var concealedSamples: Int {
        let heard = events.lastIndex {
            switch $0.played {
            case .frame, .red, .fec: true
            default: false
            }
        } ?? -1
        return events.prefix(heard + 1).reduce(0) { if case .conceal(let n) = $1.played { $0 + n } else { $0 } }
    }

    /// A talkspurt's first frame leaves the buffer at the first pull at which it is due: within one
    /// 10 ms pull interval after its target delay (its relative delay is 0 here).
    static func startsOnTarget(_ event: Event) -> Bool {
        guard let delay = event.jitterBufferDelay else { return false }
        let ms = Double(delay) / 1_000
        return ms >= event.targetDelayMs && ms < event.targetDelayMs + 10
    }

    /// The `q` quantile of the per-frame jitter-buffer delay (ms) over events after `from`.
    func jitterBufferDelayQuantile(_ q: Double, from: Int64 = 0) -> Double {
        let delays = events.filter { $0.time >= from }.compactMap(\.jitterBufferDelay).sorted()
        guard !delays.isEmpty else { return 0 }
        return Double(delays[min(Int(Double(delays.count) * q), delays.count - 1)]) / 1_000
    }
}

@Suite struct JitterBufferTests {
    typealias H = JitterBufferHarness

    @Test func inOrderPlayout() {
        var h = H()
        h.run(H.packets(0..<100))
        #expect(h.decodedFrames == Array(0..<100))
        #expect(h.concealedSamples == 0)
        let s = h.buffer.statistics
        #expect(s.packetsReceived == 100 && s.latePackets == 0 && s.discardedPackets == 0)
        // Before the first packet and while the first is held for the target: silence.
        #expect(h.events.first?.played == .silence(480))
        // The first frame waits for the target (initially the 20 ms minimum), to the first 10 ms
        // pull at which it is due; with no jitter nothing needs stretching.
        let first = h.events.first { $0.jitterBufferDelay != nil }
        #expect(first.map { H.startsOnTarget($0) && $0.targetDelayMs == 20 } == true)
        #expect(s.accelerateCount == 0 && s.expandCount == 0)
    }

    @Test func reorderingWithinTheTargetIsPlayedInOrder() {
        var packets = H.packets(0..<60)
        for i in stride(from: 5, to: 55, by: 10) { packets[i].arrival += 25_000 }  // arrives after i+1
        var h = H(JitterBufferConfiguration(clockRate: H.rate, initialDelayMs: 40))  // covers 25 ms from the start
        h.run(packets)
        #expect(h.decodedFrames == Array(0..<60))
        #expect(h.concealedSamples == 0)
        #expect(h.buffer.statistics.latePackets == 0)
    }

    @Test func duplicatesAreDroppedAndCounted() {
        var packets = H.packets(0..<40)
        for i in [3, 7, 20] {
            var copy = packets[i]
            copy.arrival += 5_000
            packets.append(copy)
        }
        var h = H()
        h.run(packets)
        #expect(h.decodedFrames == Array(0..<40))
        let s = h.buffer.statistics
        #expect(s.duplicatePackets == 3)
        #expect(s.packetsReceived == 43)
        #expect(s.discardedPackets == 0)
    }

    @Test func latePacketIsConcealedCountedAndDiscarded() {
        var packets = H.packets(0..<150)
        packets[100].arrival += 200_000
        var h = H()
        h.run(packets)
        #expect(h.decodedFrames == Array(0..<100) + Array(101..<150))
        #expect(h.concealedSamples == H.frame)
        #expect(h.insertResults[100] == .late)
        let s = h.buffer.statistics
        #expect(s.latePackets == 1 && s.discardedPackets == 1 && s.concealmentEvents == 1)
    }

    @Test func singleLostFrameIsConcealed() {
        var packets = H.packets(0..<60)
        packets.remove(at: 30)
        var h = H()
        h.run(packets)
        #expect(h.decodedFrames == Array(0..<30) + Array(31..<60))
        #expect(h.concealedSamples == H.frame)
        let lostAt = h.events.firstIndex { $0.played == .conceal(H.frame) }
        #expect(lostAt.map { h.events[$0 - 1].played == .frame(29) && h.events[$0 + 1].played == .frame(31) } == true)
        let s = h.buffer.statistics
        #expect(s.concealedSamples == H.frame && s.concealmentEvents == 1 && s.latePackets == 0)
    }

    @Test func lostFrameIsRecoveredFromRED() {
        var packets = H.packets(0..<60)
        for i in 1..<60 { packets[i].redundant = [(i - 1, packets[i - 1].timestamp)] }
        packets.remove(at: 30)
        var h = H()
        h.run(packets)
        #expect(h.heardFrames == Array(0..<60))
        #expect(h.events.contains { $0.played == .red(30) })
        #expect(h.concealedSamples == 0)
        let s = h.buffer.statistics
        #expect(s.redRecoveredFrames == 1 && s.fecRecoveredFrames == 0 && s.concealedSamples == 0)
    }

    @Test func lostFrameIsRecoveredFromFECWhenNoRED() {
        var packets = H.packets(0..<60)
        packets.remove(at: 30)
        var h = H(JitterBufferConfiguration(clockRate: H.rate, fecEnabled: true))
        h.run(packets)
        #expect(h.heardFrames == Array(0..<60))
        let fec = h.events.firstIndex { $0.played == .fec(next: 31) }
        #expect(fec.map { h.events[$0 + 1].played == .frame(31) } == true)
        let s = h.buffer.statistics
        #expect(s.fecRecoveredFrames == 1 && s.redRecoveredFrames == 0 && s.concealedSamples == 0)
    }

    /// A RED copy is used before FEC; a frame with neither (its copy comes too late) is concealed.
    @Test func redIsPreferredToFECAndTwoLossesNeedConcealment() {
        var packets = H.packets(0..<60)
        for i in 1..<60 { packets[i].redundant = [(i - 1, packets[i - 1].timestamp)] }
        packets.removeSubrange(40...41)  // 40's copy was in 41; 41's is in 42
        packets.remove(at: 20)  // 20's copy is in 21
        var h = H(JitterBufferConfiguration(clockRate: H.rate, fecEnabled: true))
        h.run(packets)
        let around40 = h.events.drop { $0.played != .frame(39) }.prefix(4).map(\.played)
        #expect(around40 == [.frame(39), .conceal(H.frame), .red(41), .frame(42)])
        #expect(h.events.contains { $0.played == .red(20) })
        let s = h.buffer.statistics
        #expect(s.redRecoveredFrames == 2 && s.fecRecoveredFrames == 0)
        #expect(s.concealedSamples == H.frame && s.concealmentEvents == 1)
    }

    /// One run with every kind of event, and the counters it must produce.
    @Test func statisticsCountEveryCase() {
        var packets = H.packets(0..<100)
        packets[41].redundant = [(40, packets[40].timestamp)]
        packets[80].arrival += 300_000  // late: frame 80 comes from the FEC in 81
        packets += [packets[5], packets[6]].map { var p = $0; p.arrival += 1_000; return p }  // duplicates
        packets.remove(at: 40)  // RED copy in 41
        packets.removeSubrange(20...21)  // 20 concealed (nothing follows it), 21 from the FEC in 22
        var h = H(JitterBufferConfiguration(clockRate: H.rate, initialDelayMs: 40, fecEnabled: true))
        h.run(packets)
        let s = h.buffer.statistics
        #expect(s.packetsReceived == 99 && s.duplicatePackets == 2)
        #expect(s.latePackets == 1 && s.discardedPackets == 1)
        #expect(s.decodedFrames == 96 && s.fecRecoveredFrames == 2 && s.redRecoveredFrames == 1)
        #expect(s.concealedSamples == H.frame && s.concealmentEvents == 1)
        #expect(s.emittedFrames == 99)
        #expect(s.ssrcChanges == 0 && s.timelineResets == 0)
        // The target decays from 40 ms towards 20 ms over the 2 s: the delay follows by acceleration.
        #expect(s.targetDelayMs > 20 && s.targetDelayMs < 30)
        #expect(s.accelerateCount > 0 && s.acceleratedSamples == s.accelerateCount * H.period && s.expandCount == 0)
        #expect(s.currentDelayMs >= s.targetDelayMs - 1 && s.currentDelayMs < s.targetDelayMs + 10)
        #expect(s.bufferedMs == 0)
        #expect(s.jitterBufferDelayP50Ms >= 20 && s.jitterBufferDelayP95Ms <= 50)
        #expect(abs(s.totalJitterBufferDelay / Double(s.emittedFrames) * 1_000 - s.jitterBufferDelayP50Ms) < 10)
    }
}
