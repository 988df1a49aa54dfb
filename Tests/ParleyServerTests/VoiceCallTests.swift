import Foundation
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing
import WebRTC

/// Calls end to end through the in-process server: signaling over WebSocket, TwiML from a test
/// application (signatures checked), WebRTC media bridged between two real peer connections.
@Suite(.serialized) struct VoiceCallTests {
    @Test func dialClientThroughTwiMLBridgesMediaAndSignsEveryWebhook() async throws {
        let h = try await VoiceHarness.start()
        let application = try h.makeApplication()
        h.app.set("/voice", "<Response><Dial><Client>bob</Client></Dial></Response>")
        let bob = try TestParty(try await h.client("bob", listen: true))
        let alice = try TestParty(try await h.client("alice", application: application.sid))

        let callSid = try await alice.invite(to: "bob", params: ["mood": "happy"])
        #expect(callSid.hasPrefix("CA"))
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        #expect(incoming.from == "client:alice")
        #expect(incoming.to == "client:bob")
        _ = try await alice.signaling.expect("ringing") { if case .ringing = $0 { true } else { nil } }
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        try await alice.expectConnected()

        // Media: what alice sends arrives at bob, rewritten onto bob's stream.
        let receiver = Task {
            var count = 0
            for await packet in bob.peer.audio where packet.payload.first == 0xAB {
                count += 1
                if count == 20 { break }
            }
            return count
        }
        for _ in 0..<60 {
            try await alice.peer.sendAudio(payload: [0xAB] + Array(repeating: 0x11, count: 40), timestampIncrement: 960)
            try await Task.sleep(for: .milliseconds(20))
        }
        let received = await withTaskGroup(of: Int.self) { group in
            group.addTask { await receiver.value }
            group.addTask { try? await Task.sleep(for: .seconds(5)); receiver.cancel(); return -1 }
            defer { group.cancelAll() }
            return await group.next() ?? -1
        }
        #expect(received == 20)

        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        let bobHangup = try await bob.expectHangup()
        #expect(bobHangup.callSid == incoming.callSid)
        #expect(bobHangup.code == nil)

        // The webhook carried Twilio's parameters and a valid signature.
        let voice = try #require(h.app.requests("/voice").first)
        #expect(voice.signatureValid)
        #expect(voice.parameters["From"] == "client:alice")
        #expect(voice.parameters["To"] == "bob")
        #expect(voice.parameters["CallSid"] == callSid)
        #expect(voice.parameters["AccountSid"] == h.credentials.account.sid)
        #expect(voice.parameters["ApplicationSid"] == application.sid)
        #expect(voice.parameters["Direction"] == "inbound")
        #expect(voice.parameters["mood"] == "happy")

        // The rows: a completed parent and a completed child of it.
        try await Task.sleep(for: .milliseconds(300))
        let parent = try #require(try h.store.call(sid: callSid))
        #expect(parent.status == .completed)
        #expect(parent.answerTime != nil)
        let child = try #require(try h.store.call(sid: incoming.callSid))
        #expect(child.parentCallSid == callSid)
        #expect(child.direction == "outbound-dial")
        #expect(child.status == .completed)

        // Status callbacks: initiated, ringing, answered (in-progress), completed — all signed.
        let deadline = ContinuousClock.now + .seconds(5)
        while h.app.requests("/status").count < 4, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let statuses = h.app.requests("/status").map { $0.parameters["CallStatus"] ?? "" }
        #expect(statuses == ["initiated", "ringing", "in-progress", "completed"])
        let unsigned = h.app.requests("/status").filter { !$0.signatureValid }.count
        #expect(unsigned == 0)
        await alice.close()
        await bob.close()
        await h.stop()
    }

    @Test func gatherCollectsDigitsAndPostsThemToTheAction() async throws {
        let h = try await VoiceHarness.start()
        let application = try h.makeApplication()
        h.app.set("/voice", """
            <Response><Gather numDigits="3" action="/gathered"><Say>Enter your code</Say></Gather></Response>
            """)
        h.app.set("/gathered", "<Response><Hangup/></Response>")
        let alice = try TestParty(try await h.client("alice", application: application.sid))
        let callSid = try await alice.invite(to: "ivr")
        try await alice.connectMedia()
        try await alice.expectConnected()
        try await alice.signaling.send(.dtmf(DTMF(callSid: callSid, digits: "427")))
        let hangup = try await alice.expectHangup()
        #expect(hangup.code == nil)
        let gathered = try #require(h.app.requests("/gathered").first)
        #expect(gathered.parameters["Digits"] == "427")
        #expect(gathered.signatureValid)
        await alice.close()
        await h.stop()
    }

    @Test func rejectBusyGives31486() async throws {
        let h = try await VoiceHarness.start()
        let application = try h.makeApplication()
        h.app.set("/voice", #"<Response><Reject reason="busy"/></Response>"#)
        let alice = try TestParty(try await h.client("alice", application: application.sid))
        let callSid = try await alice.invite(to: "anyone")
        let hangup = try await alice.expectHangup()
        #expect(hangup.callSid == callSid)
        #expect(hangup.code == 31486)
        #expect(try h.store.call(sid: callSid)?.status == .busy)
        await alice.close()
        await h.stop()
    }
}
