import SFU
import Testing

/// The dominant speaker on a virtual clock: levels every 20 ms as packets bring them.
@Suite struct DominantSpeakerDetectorTests {
    /// Feeds `levels` (participant → dBov) every 20 ms from `start` for `duration` ms; returns every change.
    static func run(_ detector: inout DominantSpeakerDetector, _ levels: [String: UInt8], from start: Int64,
                    for duration: Int64) -> [(Int64, String?)] {
        var changes: [(Int64, String?)] = []
        var t = start
        while t < start + duration {
            for (who, level) in levels { detector.level(level, of: who, at: t) }
            if t % 100 == 0, let change = detector.evaluate(at: t) { changes.append((t, change)) }
            t += 20
        }
        return changes
    }

    @Test func theLoudestTakesTheFloorAndKeepsItThroughAShortInterruption() {
        var d = DominantSpeakerDetector()
        let first = Self.run(&d, ["alice": 20, "bob": 127], from: 0, for: 2000)
        #expect(first.map(\.1) == ["alice"])
        // Bob says something short and loud: 400 ms is under the hold time.
        let short = Self.run(&d, ["alice": 40, "bob": 10], from: 2000, for: 400)
        #expect(short.isEmpty)
        #expect(d.dominant == "alice")
        #expect(Self.run(&d, ["alice": 30, "bob": 127], from: 2400, for: 1000).isEmpty)
        // Bob talks louder for 2 s: he takes the floor about 1 s in.
        let long = Self.run(&d, ["alice": 40, "bob": 10], from: 3400, for: 2000)
        #expect(long.map(\.1) == ["bob"])
        #expect((long.first?.0 ?? 0) >= 4400 && (long.first?.0 ?? 0) <= 4700, "\(long.map(\.0))")
    }

    @Test func silenceHandsTheFloorOverAndLeavingLosesIt() {
        var d = DominantSpeakerDetector()
        _ = Self.run(&d, ["alice": 20], from: 0, for: 1000)
        #expect(d.dominant == "alice")
        // Alice falls silent; bob speaks softly (quieter than alice was): after the hold time he has it.
        let changes = Self.run(&d, ["alice": 127, "bob": 45], from: 1000, for: 2000)
        #expect(changes.map(\.1) == ["bob"])
        d.remove("bob")
        #expect(d.dominant == nil)
    }

    @Test func whenTheSpeakerLeavesASilentParticipantDoesNotTakeTheFloor() {
        var d = DominantSpeakerDetector()
        _ = Self.run(&d, ["alice": 20, "bob": 30], from: 0, for: 1000)
        #expect(d.dominant == "alice")
        // Both fall silent; what is left of bob's speech decays under the speech level.
        #expect(Self.run(&d, ["alice": 127, "bob": 127], from: 1000, for: 2000).isEmpty)
        d.remove("alice")
        #expect(d.evaluate(at: 3000) == nil && d.dominant == nil)
        #expect(Self.run(&d, ["bob": 30], from: 3000, for: 200).map(\.1) == ["bob"])
    }

    @Test func networkQualityLevels() {
        #expect(NetworkQualityLevel.level(rttMilliseconds: 20, jitterMilliseconds: 2, lossPercent: 0) == 5)
        #expect(NetworkQualityLevel.level(rttMilliseconds: 300, jitterMilliseconds: 30, lossPercent: 5) <= 3)
        #expect(NetworkQualityLevel.level(rttMilliseconds: nil, jitterMilliseconds: nil, lossPercent: nil) == 5)
        #expect(NetworkQualityLevel.level(rttMilliseconds: 20, jitterMilliseconds: 2, lossPercent: 0,
                                          availableBitrate: 250_000, neededBitrate: 1_000_000) == 1)
        #expect(NetworkQualityLevel.level(rttMilliseconds: 20, jitterMilliseconds: 2, lossPercent: 0,
                                          availableBitrate: 0, neededBitrate: 500_000) == 0)
        #expect(NetworkQualityLevel.level(rttMilliseconds: 20, jitterMilliseconds: 2, lossPercent: 60) == 0)
    }
}
