import ParleyAudio
import Testing

/// The timeline: sequence and timestamp wrap-around, talkspurt starts, DTX pauses, SSRC changes
/// and timestamp discontinuities.
@Suite struct JitterBufferTimelineTests {
    typealias H = JitterBufferHarness

    @Test func sequenceNumberWrapsAt65535() {
        var h = H()
        h.run(H.packets(0..<80, firstSequence: 65_500))
        #expect(h.decodedFrames == Array(0..<80))
        #expect(h.concealedSamples == 0)
    }

    @Test func timestampWrapsAt2To32() {
        let first = UInt32.max - UInt32(H.frame * 30) + 1
        var h = H()
        h.run(H.packets(0..<80, firstTimestamp: first))
        #expect(h.decodedFrames == Array(0..<80))
        #expect(h.concealedSamples == 0)
        #expect(h.buffer.statistics.timelineResets == 0)
    }

    /// A 3 s DTX pause (sequence numbers continue, the timestamp jumps, the marker bit is set)
    /// during which the path delay changes: the next talkspurt is re-anchored at the target delay.
    @Test(arguments: [50_000 as Int64, 100_000, 20_000])
    func talkspurtStartIsReanchoredToTheTarget(secondDelay: Int64) {
        var packets = H.packets(0..<50)
        var second = H.packets(200..<250, firstSequence: 1_050, delay: { _ in secondDelay })
        second[0].marker = true
        packets += second
        var h = H()
        h.run(packets, until: 5_400_000)
        #expect(h.decodedFrames == Array(0..<50) + Array(200..<250))
        let s = h.buffer.statistics
        #expect(s.latePackets == 0)
        // The loss at the end of the first talkspurt is unknown until the next packet: at most
        // `maxConcealmentMs` (100 ms) of concealment, then silence.
        #expect(h.concealedSamples <= 4_800)
        let firstOfSecond = h.events.first { $0.played == .frame(200) }
        #expect(firstOfSecond.map(H.startsOnTarget) == true)
        // Between the talkspurts: concealment, then only silence.
        let gap = h.events.filter { $0.time > 1_200_000 && $0.time < 4_000_000 }
        #expect(!gap.isEmpty && gap.allSatisfy { if case .silence = $0.played { true } else { false } })
    }

    /// A DTX pause without the marker bit: the next packet follows the last one played with no
    /// sequence gap, so the missing timestamps are silence, not loss, and playout re-anchors there.
    @Test func dtxPauseIsToldFromLossBySequenceNumbers() {
        var packets = H.packets(0..<50)
        packets += H.packets(53..<80, firstSequence: 1_050)
        var h = H(JitterBufferConfiguration(clockRate: H.rate, minimumDelayMs: 80, initialDelayMs: 80))
        h.run(packets)
        #expect(h.decodedFrames == Array(0..<50) + Array(53..<80))
        #expect(h.concealedSamples == 0)
        let pause = h.events.drop { $0.played != .frame(49) }.dropFirst().prefix { $0.played != .frame(53) }
        #expect(!pause.isEmpty && pause.allSatisfy { if case .silence = $0.played { true } else { false } })
        let resumed = h.events.first { $0.played == .frame(53) }
        #expect(resumed.map { H.startsOnTarget($0) && $0.targetDelayMs == 80 } == true)
    }

    @Test func ssrcChangeResetsAndReanchors() {
        let first = H.packets(0..<30, firstSequence: 100, firstTimestamp: 5_000, ssrc: 1)
        let second = H.packets(30..<80, firstSequence: 40_000, firstTimestamp: 3_000_000_000, ssrc: 2)
        var h = H()
        h.run(first + second)
        let s = h.buffer.statistics
        #expect(s.ssrcChanges == 1)
        // Whatever of the first source was still held is flushed; the second plays in full.
        let decoded = h.decodedFrames
        #expect(Array(decoded.drop { $0 < 30 }) == Array(30..<80))
        #expect(decoded.filter { $0 < 30 } == Array(0..<(30 - s.discardedPackets)))
        #expect(s.discardedPackets <= 2)
        #expect(s.latePackets == 0)
        let firstOfSecond = h.events.first { $0.played == .frame(30) }
        #expect(firstOfSecond.map(H.startsOnTarget) == true)
    }

    /// The sender restarts its timestamps (same SSRC, sequence numbers continue): rather than call
    /// every later packet late, the buffer starts a new timeline.
    @Test func timestampJumpBackwardsStartsANewTimeline() {
        let packets = H.packets(0..<50)
        var restarted = H.packets(50..<100, firstSequence: 1_050)
        for i in restarted.indices { restarted[i].timestamp = UInt32(1_000 + i * H.frame) }
        var h = H()
        h.run(packets + restarted)
        let s = h.buffer.statistics
        #expect(s.timelineResets == 1 && s.ssrcChanges == 0)
        #expect(Array(h.decodedFrames.drop { $0 < 50 }) == Array(50..<100))
        #expect(s.latePackets == 0)
    }
}
