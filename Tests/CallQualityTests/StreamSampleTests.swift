import CallQuality
import Testing

@Suite struct StreamSampleTests {
    @Test func intervalFromCumulativeCounters() {
        let previous = StreamCounters(packets: 1_000, bytes: 160_000, packetsLost: 10)
        let current = StreamCounters(packets: 1_045, bytes: 167_200, packetsLost: 15)
        let sample = StreamSample(from: previous, to: current, jitterMilliseconds: 12)
        #expect(sample.packets == 45 && sample.bytes == 7_200 && sample.packetsLost == 5)
        #expect(sample.lossPercent == 10)  // 5 of 50 expected (twilio.js: lost / (received + lost))
        #expect(sample.jitterMilliseconds == 12)
        // Duplicates can make the cumulative loss fall (RFC 3550 §6.4.1): no negative loss.
        let fewer = StreamSample(from: current, to: StreamCounters(packets: 1_095, bytes: 175_200, packetsLost: 13))
        #expect(fewer.packetsLost == 0 && fewer.lossPercent == 0)
        // Nothing expected: 0 %, as twilio.js.
        #expect(StreamSample(from: current, to: current).lossPercent == 0)
        // An RTCP fraction lost of 64/256 given directly.
        #expect(StreamSample(packets: 50, lossPercent: 64.0 / 256 * 100).lossPercent == 25)
    }

    @Test func audioLevelSummaryPoolsReadings() throws {
        var a = AudioLevelSummary(levels: [0.1, 0.3])
        let b = AudioLevelSummary(levels: [0.1, 0.3])
        a.merge(b)
        #expect(a.count == 4)
        #expect(abs(try #require(a.mean) - 0.2) < 1e-12)
        #expect(abs(try #require(a.standardDeviation) - 0.1) < 1e-12)
        #expect(AudioLevelSummary().mean == nil)
        #expect(AudioLevelSummary(level: 1).meanDecibels == 0)
        #expect(AudioLevelSummary(level: 0.01).meanDecibels.map { abs($0 + 40) < 1e-9 } == true)
        #expect(AudioLevelSummary(level: 0).meanDecibels == -127)
        #expect(AudioLevelSummary(levels: [2, -1, .nan]).sum == 1)  // clamped to 0…1, NaN ignored
    }
}
