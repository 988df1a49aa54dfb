import Foundation
import ParleyServer
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// What happens during a bridged call: hold, call messages, DTMF relay, resume after the socket
/// drops, ICE restart.
@Suite(.serialized) struct VoiceInCallTests {
    /// A bridged call between alice and bob (direct routing), with both media connected.
    private func bridgedCall(_ h: VoiceHarness) async throws -> (alice: TestParty, bob: TestParty, callSid: String, bobSid: String) {
        try await h.aliceDialsBob(throughApplication: false)
    }

    /// Counts the packets a party receives by their first payload byte, for the whole test (an
    /// `AsyncStream` ends when its reading task is cancelled, so there is one reader).
    private final class PacketCounter: Sendable {
        private final class Counts: Sendable { let value = Mutex<[UInt8: Int]>([:]) }
        private let counts = Counts()
        private let reader: Task<Void, Never>

        init(_ party: TestParty) {
            let counts = self.counts
            reader = Task {
                for await packet in party.peer.audio { counts.value.withLock { $0[packet.payload.first ?? 0, default: 0] += 1 } }
            }
        }

        var snapshot: [UInt8: Int] { counts.value.withLock { $0 } }

        /// Packets with `marker` first and all others received while `body` ran (plus 200 ms).
        func during(marker: UInt8, _ body: () async throws -> Void) async throws -> (marked: Int, other: Int) {
            let before = snapshot
            try await body()
            try await Task.sleep(for: .milliseconds(200))
            let after = snapshot
            let marked = (after[marker] ?? 0) - (before[marker] ?? 0)
            let total = after.values.reduce(0, +) - before.values.reduce(0, +)
            return (marked, total - marked)
        }

        func stop() { reader.cancel() }
    }

    private func send(_ party: TestParty, marker: UInt8, count: Int) async throws {
        for _ in 0..<count {
            try await party.peer.sendAudio(payload: [marker] + Array(repeating: 0x22, count: 30), timestampIncrement: 960)
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func holdReplacesThePartyWithHoldMusicAndUnholdRestoresIt() async throws {
        let h = try await VoiceHarness.start()
        let (alice, bob, callSid, _) = try await bridgedCall(h)
        let atBob = PacketCounter(bob)
        defer { atBob.stop() }
        let before = try await atBob.during(marker: 0xA1) { try await send(alice, marker: 0xA1, count: 25) }
        #expect(before.marked >= 20)

        try await alice.signaling.send(.hold(Hold(callSid: callSid, hold: true)))
        try await Task.sleep(for: .milliseconds(200))
        let held = try await atBob.during(marker: 0xA1) { try await send(alice, marker: 0xA1, count: 25) }
        #expect(held.marked == 0)
        #expect(held.other >= 15)  // hold music from the server, 50 frames a second

        try await alice.signaling.send(.hold(Hold(callSid: callSid, hold: false)))
        try await Task.sleep(for: .milliseconds(200))
        let after = try await atBob.during(marker: 0xA1) { try await send(alice, marker: 0xA1, count: 25) }
        #expect(after.marked >= 20)
        await alice.close()
        await bob.close()
        await h.stop()
    }

    @Test func callMessagesPassBothWaysAndAreLimitedToTenAMinute() async throws {
        let h = try await VoiceHarness.start()
        let (alice, bob, callSid, bobSid) = try await bridgedCall(h)
        try await alice.signaling.send(.message(CallMessage(callSid: callSid, messageId: "m1", body: #"{"hi":"bob"}"#)))
        let atBob = try await bob.signaling.expect("message") { if case .message(let m) = $0 { m } else { nil } }
        #expect(atBob.body == #"{"hi":"bob"}"#)
        #expect(atBob.callSid == bobSid)
        _ = try await alice.signaling.expect("messageSent") { if case .messageSent(let a) = $0, a.messageId == "m1" { a } else { nil } }
        try await bob.signaling.send(.message(CallMessage(callSid: bobSid, messageId: "r1", body: #"{"hi":"alice"}"#)))
        let atAlice = try await alice.signaling.expect("message") { if case .message(let m) = $0 { m } else { nil } }
        #expect(atAlice.body == #"{"hi":"alice"}"#)

        for i in 2...10 {
            try await alice.signaling.send(.message(CallMessage(callSid: callSid, messageId: "m\(i)", body: "{}")))
        }
        try await alice.signaling.send(.message(CallMessage(callSid: callSid, messageId: "m11", body: "{}")))
        let failure = try await alice.signaling.expect("messageFailed") { if case .messageFailed(let f) = $0 { f } else { nil } }
        #expect(failure.messageId == "m11")
        #expect(failure.code == 31429)
        await alice.close()
        await bob.close()
        await h.stop()
    }

    @Test func digitsAreRelayedOverSignaling() async throws {
        let h = try await VoiceHarness.start()
        let (alice, bob, callSid, bobSid) = try await bridgedCall(h)
        try await alice.signaling.send(.dtmf(DTMF(callSid: callSid, digits: "12#")))
        let relayed = try await bob.signaling.expect("dtmf") { if case .dtmf(let d) = $0 { d } else { nil } }
        #expect(relayed.digits == "12#")
        #expect(relayed.callSid == bobSid)
        await alice.close()
        await bob.close()
        await h.stop()
    }

    @Test func aDroppedSocketResumesItsCallWithinTheWindow() async throws {
        let h = try await VoiceHarness.start()
        let (alice, bob, callSid, _) = try await bridgedCall(h)
        let session = try #require(alice.signaling.sessionID)
        await alice.signaling.drop()
        try await Task.sleep(for: .milliseconds(300))
        let again = try await SignalingTestClient(baseURL: h.baseURL, token: try h.token("alice"), resume: session)
        guard case .resumed(let resumed) = again.greeting else {
            Issue.record("expected resumed, got \(again.greeting)")
            return
        }
        #expect(resumed.session == session)
        #expect(resumed.calls == [callSid])
        // The call goes on: media still flows and a hangup on the new socket ends it for bob.
        let atBob = PacketCounter(bob)
        defer { atBob.stop() }
        let flowing = try await atBob.during(marker: 0xB2) { try await send(alice, marker: 0xB2, count: 20) }
        #expect(flowing.marked >= 15)
        try await again.send(.hangup(Hangup(callSid: callSid)))
        _ = try await bob.expectHangup()
        await again.close()
        await alice.peer.close()
        await bob.close()
        await h.stop()
    }

    @Test func iceRestartAnswersWithNewCredentialsAndMediaContinues() async throws {
        let h = try await VoiceHarness.start()
        let (alice, bob, callSid, _) = try await bridgedCall(h)
        let offer = try await alice.peer.restartICE()
        try await alice.signaling.send(.iceRestart(IceRestart(callSid: callSid, sdp: offer)), id: "r1")
        let answer = try await alice.signaling.expect("answer") { if case .answer(let a) = $0 { a.sdp } else { nil } }
        #expect(answer.contains("a=ice-ufrag:"))
        try await alice.peer.setRemoteAnswer(answer)
        let atBob = PacketCounter(bob)
        defer { atBob.stop() }
        let flowing = try await atBob.during(marker: 0xC3) { try await send(alice, marker: 0xC3, count: 25) }
        #expect(flowing.marked >= 15)
        await alice.close()
        await bob.close()
        await h.stop()
    }
}
