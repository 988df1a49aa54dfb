import NetworkConditioner
import ParleyAudio
import Testing

/// Loss recovery under jitter: a lost frame is only available when a later packet brings its RED
/// copy or FEC, so the target delay must cover that later arrival while loss lasts, and fall back
/// to the packets' own jitter when it stops. And the stretches that steer the delay wait for a
/// quiet frame unless they are urgent.
@Suite struct JitterBufferRecoveryTests {
    typealias H = JitterBufferHarness

    /// RFC 2198 redundancy of distance 2, as the send stream does: each packet repeats the two
    /// frames before it.
    static func withRED(_ packets: [H.Packet]) -> [H.Packet] {
        packets.enumerated().map { k, p in
            var p = p
            p.redundant = (1...2).compactMap { d in k >= d ? (packets[k - d].index, packets[k - d].timestamp) : nil }
            return p
        }
    }

    /// How many frames were concealed (in whole frames).
    static func concealedFrames(_ h: H) -> Int {
        h.events.reduce(0) { if case .conceal(let n) = $1.played { $0 + n / H.frame } else { $0 } }
    }

    /// 15 s of 10 % loss with 0–30 ms of jitter (reordering allowed), then 15 s of the same jitter
    /// without loss. Without recovery delays in the estimator the target stays at the packets'
    /// ~30 ms and most copies, which come 20 ms + jitter after their frame, arrive too late.
    @Test func redCopiesArriveInTimeUnderJitterAndTheTargetFallsBackWhenLossStops() {
        var random = SeededGenerator(seed: 21)
        let count = 1_500
        let jitter = (0..<count).map { _ in Int64(random.unit() * 30_000) }
        let lost = Set((0..<750).filter { _ in random.unit() < 0.1 })
        let packets = Self.withRED(H.packets(0..<count, delay: { 50_000 + jitter[$0] }))
            .filter { !lost.contains($0.index) }
        var h = H()
        h.run(packets)
        let s = h.buffer.statistics
        #expect(lost.count > 50)
        // Nearly every lost frame comes back from a copy; the few concealed are the first losses
        // (before the target knows) and runs of three.
        #expect(s.redRecoveredFrames >= lost.count - 8)
        #expect(Self.concealedFrames(h) <= 8)
        // While loss lasts the target covers copies one frame later plus most of the jitter.
        let during = h.events.filter { $0.time > 5_000_000 && $0.time < 15_000_000 }.map(\.targetDelayMs)
        #expect(during.min()! >= 45 && during.max()! <= 80)
        // Loss stopped at 15 s: the target is back to the packets' own jitter, under 40 ms at p95.
        #expect(s.targetDelayMs >= 28 && s.targetDelayMs <= 32)
        #expect(h.jitterBufferDelayQuantile(0.95, from: 25_000_000) <= 40)
    }

    /// Frames 30 and 31 lost with a steady 50 ms path: the copy of 30 comes two frames later, 40 ms
    /// after its frame, too late for the 20 ms target, so 30 is concealed. That late copy raises the
    /// target, and the next double loss is recovered in full.
    @Test func aCopyTooLateForAConcealedFrameRaisesTheTarget() {
        let lost: Set<Int> = [30, 31, 100, 101]
        let packets = Self.withRED(H.packets(0..<200)).filter { !lost.contains($0.index) }
        var h = H()
        h.run(packets)
        let around30 = h.events.drop { $0.played != .frame(29) }.prefix(3).map(\.played)
        #expect(around30 == [.frame(29), .conceal(H.frame), .red(31)])
        #expect(h.events.contains { $0.played == .red(100) } && h.events.contains { $0.played == .red(101) })
        #expect(Self.concealedFrames(h) == 1)
        let after = h.events.first { $0.played == .red(31) }
        #expect(after.map { $0.targetDelayMs >= 40 && $0.targetDelayMs <= 44 } == true)
    }

    /// The same with in-band FEC and no RED: frame 30 is lost and 31, which carries its FEC, comes
    /// 15 ms late, after 30's playout. The target grows by that much, and the next such loss is
    /// rebuilt from FEC.
    @Test func fecArrivingTooLateRaisesTheTargetToo() {
        var packets = H.packets(0..<200)
        packets[31].arrival += 15_000
        packets[101].arrival += 15_000
        packets.removeAll { $0.index == 30 || $0.index == 100 }
        var h = H(JitterBufferConfiguration(clockRate: H.rate, fecEnabled: true))
        h.run(packets)
        #expect(!h.events.contains { $0.played == .fec(next: 31) })
        #expect(h.events.contains { $0.played == .fec(next: 101) })
        #expect(Self.concealedFrames(h) == 1)
        #expect(h.buffer.statistics.latePackets == 0)
    }

    /// One lost frame a minute is not "loss": a single recovery lifts the target only briefly.
    @Test func anIsolatedLossDoesNotKeepTheTargetUp() {
        let packets = Self.withRED(H.packets(0..<1_000)).filter { $0.index != 100 }
        var h = H()
        h.run(packets)
        #expect(h.events.contains { $0.played == .red(100) })
        #expect(h.buffer.statistics.targetDelayMs == 20)
        let late = h.events.filter { $0.time > 10_000_000 }
        #expect(late.allSatisfy { $0.targetDelayMs == 20 })
    }

    /// Urgency of the stretch requests over a run with jitter that comes and goes: an expand is
    /// urgent exactly when the delay is more than 5 ms under the target, an accelerate when the
    /// excess has lasted 3 s or exceeds the band by 40 ms. With frames never quiet only urgent
    /// requests are carried out, and still nothing is late beyond the jitter itself.
    @Test func stretchesWaitForAQuietFrameUnlessUrgent() {
        var random = SeededGenerator(seed: 5)
        let jitter = (0..<1_500).map { i in (250..<750).contains(i) ? Int64(random.unit() * 40_000) : 0 }
        var h = H(JitterBufferConfiguration(clockRate: H.rate, initialDelayMs: 100))
        h.quietFrames = false
        h.run(H.packets(0..<1_500, delay: { 50_000 + jitter[$0] }))
        var excessSince: Int64?
        var checked = (expand: 0, accelerate: 0, urgent: 0)
        for e in h.events where e.jitterBufferDelay != nil {
            let delay = e.playoutDelayMs, target = e.targetDelayMs
            if delay < target + 10 { excessSince = nil }
            switch e.stretch {
            case .expand(_, let urgent):
                #expect(urgent == (delay < target - 5))
                checked.expand += 1
                if urgent { checked.urgent += 1 }
            case .accelerate(_, let urgent):
                let since = excessSince ?? e.time
                excessSince = since
                #expect(urgent == (e.time - since >= 3_000_000 || delay - target >= 50))
                checked.accelerate += 1
                if urgent { checked.urgent += 1 }
            case .none:
                break
            }
        }
        #expect(checked.expand > 0 && checked.accelerate > 0 && checked.urgent > 0)
        // The 100 ms start is far above what is needed: taken out at once (urgent), not 3 s later.
        let firstUrgent = h.events.first { if case .accelerate(_, true) = $0.stretch { true } else { false } }
        #expect(firstUrgent.map { $0.time < 2_000_000 } == true)
        #expect(h.buffer.statistics.targetDelayMs == 20)
    }
}

/// Retransmissions (RFC 4585 NACK) are played when they come in time and never raise the delay.
@Suite struct JitterBufferRetransmissionTests {
    @Test func lateRetransmissionsLeaveTheTargetAlone() {
        func target(markingRetransmissions: Bool) -> Double {
            var buffer = JitterBuffer(configuration: JitterBufferConfiguration(clockRate: 48_000))
            for i in 0..<300 {
                // Every tenth packet comes 80 ms late, as a packet asked for again would.
                let late = i % 10 == 5
                var packet = JitterBufferPacket(sequenceNumber: UInt16(i), timestamp: UInt32(960 * i), ssrc: 7,
                                                payloadType: 111, arrivalTime: Int64(20_000 * i + (late ? 80_000 : 0)),
                                                duration: 960)
                packet.isRetransmission = late && markingRetransmissions
                _ = [UInt8(i & 0xFF)].withUnsafeBytes { buffer.insert(packet, payload: $0) }
            }
            return buffer.targetDelayMs
        }
        #expect(target(markingRetransmissions: false) >= 60)
        #expect(target(markingRetransmissions: true) <= 25)
    }
}
