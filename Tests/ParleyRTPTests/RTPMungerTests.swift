import Testing
import ParleyRTP

/// The SFU numbering of one outgoing stream, on a virtual clock (seconds).
@Suite struct RTPMungerTests {
    /// 20 ms Opus frames of a source starting at `seq`/`ts`, one every 20 ms from `start`.
    func feed(_ stream: inout RTPMunger, ssrc: UInt32, seq: UInt16, ts: UInt32, count: Int, start: Double)
        -> [RTPMunger.Position] {
        (0..<count).map { i in
            stream.forwarded(ssrc: ssrc, sequence: seq &+ UInt16(i), timestamp: ts &+ UInt32(960 * i),
                             now: start + 0.02 * Double(i))
        }
    }

    @Test func oneSourceIsShiftedByConstantOffsets() {
        var stream = RTPMunger(clockRate: 48_000, initialSequence: 100, initialTimestamp: 5_000)
        let out = feed(&stream, ssrc: 7, seq: 65_530, ts: UInt32.max - 1_000, count: 10, start: 1)
        #expect(out.first == .init(sequenceNumber: 100, timestamp: 5_000, resynchronised: true))
        #expect(out.dropFirst().allSatisfy { !$0.resynchronised })
        for (a, b) in zip(out, out.dropFirst()) {
            #expect(b.sequenceNumber == a.sequenceNumber &+ 1)  // across the source's wrap at 65535
            #expect(b.timestamp == a.timestamp &+ 960)
        }
        // Loss and reordering in the source carry over unchanged.
        let skipped = stream.forwarded(ssrc: 7, sequence: 65_530 &+ 12, timestamp: UInt32.max - 1_000 &+ 960 * 12, now: 1.24)
        #expect(skipped.sequenceNumber == 112 && skipped.timestamp == 5_000 + 960 * 12)
        let late = stream.forwarded(ssrc: 7, sequence: 65_530 &+ 11, timestamp: UInt32.max - 1_000 &+ 960 * 11, now: 1.25)
        #expect(late.sequenceNumber == 111 && !late.resynchronised)
        #expect(stream.lastSequence == 112)
    }

    @Test func switchingSourcesKeepsSequenceAndAdvancesTimestampByWallTime() {
        var stream = RTPMunger(clockRate: 48_000, initialSequence: 1, initialTimestamp: 0)
        let a = feed(&stream, ssrc: 0xA, seq: 40_000, ts: 123_456, count: 5, start: 0)
        stream.sourceChanged()
        // B starts 300 ms after A's last packet, with unrelated numbering.
        let b = feed(&stream, ssrc: 0xB, seq: 7, ts: 3_000_000_000, count: 5, start: 0.08 + 0.3)
        #expect(b[0].sequenceNumber == a[4].sequenceNumber &+ 1)
        #expect(b[0].resynchronised)
        #expect(b[0].timestamp &- a[4].timestamp == 14_400)  // 300 ms at 48 kHz
        for (x, y) in zip(b, b.dropFirst()) { #expect(y.timestamp &- x.timestamp == 960) }
        // The same source changing SSRC is a switch too; a switch right away still advances one frame.
        let c = stream.forwarded(ssrc: 0xC, sequence: 1, timestamp: 1, now: 0.38 + 0.08)
        #expect(c.resynchronised && c.sequenceNumber == b[4].sequenceNumber &+ 1)
        #expect(c.timestamp &- b[4].timestamp == 960)
    }

    @Test func playedFramesContinueTheStreamAndPausesStartATalkspurt() {
        var stream = RTPMunger(clockRate: 8_000, initialSequence: 65_535, initialTimestamp: 10)
        let forwarded = stream.forwarded(ssrc: 1, sequence: 9, timestamp: 99, now: 0)
        let first = stream.played(samples: 160, now: 0.1)
        #expect(first.resynchronised && first.sequenceNumber == forwarded.sequenceNumber &+ 1)
        #expect(first.timestamp == 10 + 800)  // 100 ms at 8 kHz
        let second = stream.played(samples: 160, now: 0.12)
        #expect(!second.resynchronised && second.sequenceNumber == first.sequenceNumber &+ 1)
        #expect(second.timestamp == first.timestamp + 160)
        // A little scheduling jitter is not a pause…
        let third = stream.played(samples: 160, now: 0.19)
        #expect(!third.resynchronised && third.timestamp == second.timestamp + 160)
        // …but half a second is: the timestamp follows the wall clock.
        let fourth = stream.played(samples: 160, now: 0.69)
        #expect(fourth.resynchronised && fourth.timestamp == third.timestamp + 4_000)
        // Back to forwarding: a switch again, even from the same source as before.
        let back = stream.forwarded(ssrc: 1, sequence: 10, timestamp: 259, now: 0.71)
        #expect(back.resynchronised && back.sequenceNumber == fourth.sequenceNumber &+ 1)
        #expect(back.timestamp == fourth.timestamp + 160)
    }

    @Test func telephoneEventsKeepTheirSharedTimestampAndDoNotChangeTheFrameStep() {
        var stream = RTPMunger(clockRate: 48_000, initialSequence: 0, initialTimestamp: 0)
        _ = feed(&stream, ssrc: 5, seq: 0, ts: 0, count: 3, start: 0)
        // An event at ts 2880 in three packets, then audio resumes 200 ms after the event began.
        let events = (3..<6).map { stream.forwarded(ssrc: 5, sequence: UInt16($0), timestamp: 2_880, now: 0.06 + 0.02 * Double($0 - 3)) }
        #expect(Set(events.map(\.timestamp)) == [2_880])
        _ = stream.forwarded(ssrc: 5, sequence: 6, timestamp: 2_880 + 9_600, now: 0.26)
        #expect(stream.frameStep == 960)
    }
}
