import NetworkConditioner
import ParleyAudio
import Testing

/// The target delay follows measured jitter within its bounds, and clock drift is compensated.
@Suite struct JitterBufferAdaptationTests {
    typealias H = JitterBufferHarness

    /// The target recorded at the last decision at or before `time`.
    static func target(_ h: H, at time: Int64) -> Double {
        h.events.last { $0.time <= time }?.targetDelayMs ?? 0
    }

    /// 10 s calm, 20 s of uniform 0–30 ms extra delay, 30 s calm.
    @Test func targetFollowsJitterUpQuicklyAndDownSlowly() {
        var random = SeededGenerator(seed: 7)
        let jitter = (0..<3_000).map { i in (500..<1_500).contains(i) ? Int64(random.unit() * 30_000) : 0 }
        var h = H()
        h.run(H.packets(0..<3_000, delay: { 50_000 + jitter[$0] }))
        #expect(Self.target(h, at: 10_000_000) == 20)
        // Fast attack: within 2 s of jitter appearing the target covers most of it.
        #expect(Self.target(h, at: 12_000_000) >= 25)
        // The 95th percentile of 0–30 ms: about 30 ms.
        let steady = Self.target(h, at: 30_000_000)
        #expect(steady >= 28 && steady <= 32)
        #expect(h.jitterBufferDelayQuantile(0.95, from: 15_000_000) <= 40)
        let s = h.buffer.statistics
        #expect(s.latePackets <= 10)  // of 1 000 jittered packets
        #expect(s.jitterBufferDelayP95Ms <= 40)
        // Slow decay: a second after the jitter stops the target has barely moved; later it is back at 20 ms.
        #expect(Self.target(h, at: 31_000_000) >= 25)
        #expect(Self.target(h, at: 40_000_000) < 21)
        #expect(s.targetDelayMs == 20)
    }

    @Test func targetNeverGoesBelowTheMinimum() {
        var h = H()
        h.run(H.packets(0..<500))
        #expect(h.buffer.targetDelayMs == 20)
        var higher = H(JitterBufferConfiguration(clockRate: H.rate, minimumDelayMs: 60))
        higher.run(H.packets(0..<500))
        #expect(higher.buffer.targetDelayMs == 60)
        let played = higher.events.filter { $0.time > 5_000_000 }.compactMap(\.jitterBufferDelay)
        #expect(!played.isEmpty && played.allSatisfy { $0 >= 59_000 && $0 <= 71_000 })
    }

    @Test func targetNeverGoesAboveTheConfiguredMaximum() {
        var random = SeededGenerator(seed: 11)
        let jitter = (0..<1_000).map { _ in Int64(random.unit() * 300_000) }
        var h = H(JitterBufferConfiguration(clockRate: H.rate, maximumDelayMs: 100))
        h.run(H.packets(0..<1_000, delay: { 50_000 + jitter[$0] }))
        #expect(h.events.allSatisfy { $0.targetDelayMs <= 100 })
        #expect(h.buffer.targetDelayMs == 100)
        #expect(h.buffer.statistics.latePackets > 0)  // 300 ms of jitter cannot be covered by 100 ms
    }

    /// A sender clock 0.5 % fast or slow for 5 simulated minutes (with 0–5 ms of jitter): the
    /// delay stays in its band around the target (a little under it while a slow sender's drift
    /// is being caught up), nothing is late or concealed, and about 1.5 s of audio (300 periods
    /// of 5 ms) is removed or inserted.
    @Test(arguments: [1.005, 0.995])
    func clockDriftIsCompensated(senderScale: Double) {
        var random = SeededGenerator(seed: 3)
        let count = 15_000
        let jitter = (0..<count).map { _ in Int64(random.unit() * 5_000) }
        var h = H()
        h.run(H.packets(0..<count, senderScale: senderScale, delay: { 50_000 + jitter[$0] }))
        let s = h.buffer.statistics
        #expect(h.decodedFrames.count == count)
        #expect(s.latePackets == 0 && s.concealedSamples == 0)
        let delays = h.events.filter { $0.time > 5_000_000 && $0.jitterBufferDelay != nil }.map(\.playoutDelayMs)
        let low = delays.min() ?? 0, high = delays.max() ?? 0
        #expect(low >= 16 && high <= 32)
        let drift = senderScale > 1 ? s.accelerateCount - s.expandCount : s.expandCount - s.accelerateCount
        #expect(drift >= 250 && drift <= 350)
        #expect(s.targetDelayMs == 20)
    }
}
