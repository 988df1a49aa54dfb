import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
@testable import ServerMedia
import Signaling
import Synchronization
import Testing
import WebRTC

/// A call whose legs negotiated different codecs (PCMU and Opus) is joined through a transcoding
/// relay on the media clock instead of failing: each side hears the other's tone in its own codec.
@Suite(.serialized) struct TranscodedCallTests {
    @Test func pcmuCallerAndOpusCalleeHearEachOther() async throws {
        let h = try await VoiceHarness.start()
        let application = try h.makeApplication()
        h.app.set("/voice", "<Response><Dial><Client>bob</Client></Dial></Response>")
        var pcmuOnly = PeerConnection.Configuration()
        pcmuOnly.audioCodecs = [.pcmu]
        let bob = try TestParty(try await h.client("bob", listen: true))
        let alice = try TestParty(try await h.client("alice", application: application.sid), configuration: pcmuOnly)

        let callSid = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        try await alice.expectConnected()

        let heardByBob = Mutex<[CollectingSink.Frame]>([]), heardByAlice = Mutex<[CollectingSink.Frame]>([])
        let bobListens = Task {
            for await packet in bob.peer.audio where packet.payloadType != 101 && packet.payloadType != 126 {
                heardByBob.withLock { $0.append(.init(payload: packet.payload, samples: 960, session: "bob")) }
            }
        }
        let aliceListens = Task {
            for await packet in alice.peer.audio where packet.payloadType == 0 {
                heardByAlice.withLock { $0.append(.init(payload: packet.payload, samples: 160, session: "alice")) }
            }
        }
        let aliceTone = try ConferenceMixerTests.ToneSender(1_000, codec: .pcmu)
        let bobTone = try ConferenceMixerTests.ToneSender(600, codec: .opus)
        let start = ContinuousClock.now
        for frame in 0..<100 {
            alice.peer.sendAudio(payload: try aliceTone.nextPayload(), timestampIncrement: 160)
            bob.peer.sendAudio(payload: try bobTone.nextPayload(), timestampIncrement: 960)
            try await Task.sleep(until: start + .milliseconds(20 * (frame + 1)))
        }
        try await Task.sleep(for: .milliseconds(300))
        bobListens.cancel()
        aliceListens.cancel()

        let atBob = ConferenceMixerTests.decode(heardByBob.withLock { $0 }, codec: .opus).dropFirst(MediaAudio.sampleRate / 2)
        let atAlice = ConferenceMixerTests.decode(heardByAlice.withLock { $0 }, codec: .pcmu).dropFirst(MediaAudio.sampleRate / 2)
        let bob1k = MediaSignal.amplitude(atBob, frequency: 1_000, rate: MediaAudio.sampleRate)
        let bob600 = MediaSignal.amplitude(atBob, frequency: 600, rate: MediaAudio.sampleRate)
        let alice600 = MediaSignal.amplitude(atAlice, frequency: 600, rate: MediaAudio.sampleRate)
        let alice1k = MediaSignal.amplitude(atAlice, frequency: 1_000, rate: MediaAudio.sampleRate)
        print("transcoded call: bob got \(heardByBob.withLock { $0.count }) Opus frames, 1 kHz \(Int(bob1k)) vs 600 Hz \(Int(bob600)); "
              + "alice got \(heardByAlice.withLock { $0.count }) PCMU frames, 600 Hz \(Int(alice600)) vs 1 kHz \(Int(alice1k))")
        // A 0.3 full-scale sine has amplitude ~9,800; G.711 and Opus keep it within a few dB.
        #expect(bob1k > 5_000 && bob1k > 10 * bob600)
        #expect(alice600 > 5_000 && alice600 > 10 * alice1k)

        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        _ = try await bob.expectHangup()
        await alice.close()
        await bob.close()
        await h.stop()
    }
}
