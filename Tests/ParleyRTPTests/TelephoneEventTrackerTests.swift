import RTP
import Testing
import ParleyRTP

/// RFC 4733 keys from telephone-event packets, each reported once.
@Suite struct TelephoneEventTrackerTests {
    func packet(_ event: UInt8, end: Bool, duration: UInt16) -> [UInt8] {
        TelephoneEvent(event: event, isEnd: end, volume: 10, duration: duration).serialized
    }

    func receive(_ tracker: inout TelephoneEventTracker, _ bytes: [UInt8], ts: UInt32, now: Double) -> [Character] {
        let keys = bytes.withUnsafeBytes { tracker.receive(payload: $0, timestamp: ts, now: now) }
        return [keys.0, keys.1].compactMap { $0 }
    }

    @Test func keyIsReportedOnceAtItsEndDespiteRetransmittedEndPackets() {
        var tracker = TelephoneEventTracker()
        var keys: [Character] = []
        for i in 1...4 { keys += receive(&tracker, packet(5, end: false, duration: UInt16(i * 160)), ts: 1_000, now: 0.02 * Double(i)) }
        #expect(keys.isEmpty)
        for _ in 0..<3 { keys += receive(&tracker, packet(5, end: true, duration: 800), ts: 1_000, now: 0.1) }
        #expect(keys == ["5"])
        // The same key again is a new event (new timestamp).
        keys += receive(&tracker, packet(5, end: true, duration: 800), ts: 9_000, now: 1)
        #expect(keys == ["5", "5"])
    }

    @Test func lostEndPacketsAreRecoveredByTheNextEventOrByExpiry() {
        var tracker = TelephoneEventTracker()
        #expect(receive(&tracker, packet(11, end: false, duration: 160), ts: 100, now: 0).isEmpty)
        // The next event starts: `#` is reported first, then `*` at its end.
        #expect(receive(&tracker, packet(10, end: false, duration: 160), ts: 5_000, now: 0.5) == ["#"])
        #expect(receive(&tracker, packet(10, end: true, duration: 480), ts: 5_000, now: 0.6) == ["*"])
        #expect(receive(&tracker, packet(12, end: false, duration: 160), ts: 9_000, now: 1) .isEmpty)
        #expect(tracker.expire(now: 2.9) == nil)
        #expect(tracker.expire(now: 3.0) == "A")
        #expect(tracker.expire(now: 9) == nil)
        // A late end packet of the expired event is not a second key.
        #expect(receive(&tracker, packet(12, end: true, duration: 480), ts: 9_000, now: 3.1).isEmpty)
    }

    @Test func keyCodesAndBadPayloads() {
        #expect((0...15).compactMap { TelephoneEventTracker.key(UInt8($0)) } == Array("0123456789*#ABCD"))
        #expect(TelephoneEventTracker.key(16) == nil)  // flash, not a key
        var tracker = TelephoneEventTracker()
        #expect(receive(&tracker, [], ts: 1, now: 0).isEmpty)
        #expect(receive(&tracker, [1, 0x80, 0], ts: 1, now: 0).isEmpty)
        #expect(receive(&tracker, packet(200, end: true, duration: 1), ts: 2, now: 0).isEmpty)
    }
}
