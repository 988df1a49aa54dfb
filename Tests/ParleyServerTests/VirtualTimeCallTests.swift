import HTTPWire
import ParleyCore
import ParleyStore
import ParleyTestClock
import ParleyTestSupport
import Signaling
import Testing

/// The call engine's timers on a virtual clock: a real server, real signaling, and ring
/// timeouts that fire when the test moves time, not after real seconds.
@Suite struct VirtualTimeCallTests {
    @Test func aCallThatIsNotAnsweredRingsExactlyItsTimeout() async throws {
        let clock = VirtualClock()
        try await VoiceHarness.run(clock: clock) { h, parties in
            let bob = parties.add(try TestParty(try await h.client("bob", listen: true)))
            let before = clock.sleeperCount
            let created = try await h.rest("POST", "/Calls.json", [("To", "client:bob"), ("From", "client:app"),
                                                                   ("Timeout", "45"),
                                                                   ("Twiml", "<Response><Hangup/></Response>")])
            #expect(created.status == 201, "\(created.bodyText)")
            let sid = try #require(created.jsonObject.string("sid"))
            _ = try await bob.expectIncoming()
            #expect(await clock.waitForSleepers(before + 1), "the ring timer is armed")

            clock.advance(by: .seconds(44))
            #expect(clock.nextDeadline == .zero.advanced(by: .seconds(45)), "still ringing at 44 s")
            #expect(try h.store.call(sid: sid)?.status == .ringing)

            clock.advance(by: .seconds(1))
            let code = try await bob.signaling.expect("cancelled") { if case .cancelled(let c) = $0, c.callSid == sid { c.code } else { nil } }
            #expect(code == 31408)
            #expect(try await h.waitForCall(sid) { $0.status.isFinal }?.status == .noAnswer)
        }
    }
}
