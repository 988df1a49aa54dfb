import SDP
import Testing
import WebRTC

/// A subscriber's client `PeerConnection` estimates the video it receives from the room plane
/// (abs-send-time, which the server stamps because the offer has it) and sends REMB
/// (draft-alvestrand-rmcat-remb-03) for it: what the SFU picks its layers by.
@Suite(.serialized) struct TransceiverEstimateTests {
    @Test(.timeLimit(.minutes(2))) func aSubscriberSendsREMBForTheVideoItReceives() async throws {
        let server = try MediaTransportServer()
        let alice = try await TransceiverRoomTests.Participant.join(server, [(.video, .sendonly)])
        let bob = try await TransceiverRoomTests.Participant.join(server, [(.video, .recvonly)])
        let (camera, slot) = (alice.transceivers[0], bob.transceivers[0])
        // Bob offers REMB feedback and abs-send-time on his receive slot; the answer keeps the extension.
        let offered = try SessionDescription(parsing: bob.offer).media[0]
        #expect(offered.attributes.contains { $0.name == "rtcp-fb" && $0.value?.hasSuffix(" goog-remb") == true })
        let answered = try SessionDescription(parsing: bob.answer.sdp)
        #expect(answered.extmaps(for: answered.media[0]).contains { $0.uri.hasSuffix("/abs-send-time") })
        #expect(await server.route(alice.address(camera), to: bob.address(slot)))

        // An estimate once the incoming rate has been measured for 2 s, then one a second.
        let cameraSource = try TransceiverRoomTests.Camera()
        #expect(try await cameraSource.send(until: { await bob.pc.statistics().estimatesSent >= 2 }, to: alice.pc, on: camera))
        let statistics = await bob.pc.statistics()
        let estimate = try #require(statistics.receiveEstimate)
        // About 300 kbit/s arrives on a clean loopback path: the estimate is at least that, at most 1.5 × it.
        #expect(estimate > 100_000 && estimate < 1_000_000, "estimate \(estimate)")

        await alice.pc.close()
        await bob.pc.close()
        await server.shutdown()
    }
}
