import ParleyRTP
import Testing

/// The NACK requester's decisions and the retransmission cache, as values on a virtual clock.
@Suite struct NACKTests {
    @Test func missingPacketsAreAskedForWhileTheyCanStillBePlayed() {
        var requester = RTPNACKRequester()
        var due: [UInt16] = []
        requester.received(10, now: 0)
        requester.received(13, now: 0.06)  // 11 and 12 missing
        #expect(requester.missingCount == 2)
        requester.due(now: 0.06, roundTripTime: 0.01, playoutBudget: 0.08, into: &due)
        #expect(due == [11, 12])
        // Not again before 1.5 round trips.
        requester.due(now: 0.065, roundTripTime: 0.01, playoutBudget: 0.08, into: &due)
        #expect(due.isEmpty)
        requester.received(11, now: 0.07)
        #expect(requester.recovered == 1 && requester.missingCount == 1)
        // 12 would now come too late to play: forgotten, not asked again.
        requester.due(now: 0.14, roundTripTime: 0.01, playoutBudget: 0.08, into: &due)
        #expect(due.isEmpty && requester.missingCount == 0)
        // A round trip longer than the budget: nothing is worth asking for.
        requester.received(20, now: 0.2)
        requester.due(now: 0.2, roundTripTime: 0.2, playoutBudget: 0.08, into: &due)
        #expect(due.isEmpty && requester.requested == 2)
    }

    @Test func anOutageIsNotAStormOfRequests() {
        var requester = RTPNACKRequester(capacity: 16)
        var due: [UInt16] = []
        requester.received(0, now: 0)
        requester.received(200, now: 4)
        requester.due(now: 4, roundTripTime: 0.01, playoutBudget: 0.08, into: &due)
        #expect(due.isEmpty && requester.missingCount == 0)
        // Wrapping sequence numbers (RFC 1982): 65535 → 1 misses 0.
        var wrapping = RTPNACKRequester()
        wrapping.received(65_535, now: 0)
        wrapping.received(1, now: 0.04)
        wrapping.due(now: 0.04, roundTripTime: 0.001, playoutBudget: 0.08, into: &due)
        #expect(due == [0])
    }

    @Test func theCacheAnswersWithWhatWentOutWhileItIsFresh() {
        var cache = RTPRetransmissionCache(capacity: 4, slotBytes: 16)
        for sequence in UInt16(100)..<106 {
            [UInt8](repeating: UInt8(sequence & 0xFF), count: 8).withUnsafeBytes { cache.store($0, sequenceNumber: sequence, now: Double(sequence - 100) * 0.02) }
        }
        [UInt8](repeating: 0, count: 17).withUnsafeBytes { cache.store($0, sequenceNumber: 106, now: 0.12) }
        #expect(cache.tooLong == 1)
        var found: [UInt8] = []
        #expect(cache.withPacket(105, now: 0.2) { found = Array($0) })
        #expect(found == [UInt8](repeating: 105, count: 8))
        // 100 and 101 were overwritten by 104 and 105; 102 is older than maxAge by then.
        #expect(!cache.withPacket(100, now: 0.2) { _ in })
        #expect(!cache.withPacket(102, now: 1.5) { _ in })
    }
}
