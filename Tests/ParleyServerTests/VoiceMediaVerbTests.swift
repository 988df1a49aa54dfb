import AudioCore
import Foundation
import HTTPWire
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// TwiML verbs that make or take audio, heard and recorded through real media: `<Play>` of a
/// WAV from the application, `<Say>` with espeak-ng, `<Record>` fetched back over REST.
@Suite(.serialized) struct VoiceMediaVerbTests {
    /// Collects the Opus payloads a party receives.
    private final class Collector: Sendable {
        private final class Frames: Sendable { let value = Mutex<[[UInt8]]>([]) }
        private let frames = Frames()
        private let reader: Task<Void, Never>

        init(_ party: TestParty) {
            let frames = self.frames
            reader = Task { for await packet in party.peer.audio { frames.value.withLock { $0.append(packet.payload) } } }
        }

        var received: [[UInt8]] { frames.value.withLock { $0 } }
        func stop() { reader.cancel() }
    }

    private static func toneWAV(frequency: Double, seconds: Double, rate: Int = 16_000) -> [UInt8] {
        let samples = (0..<Int(seconds * Double(rate))).map { n in
            Int16(0.4 * 32767 * sin(2 * .pi * frequency * Double(n) / Double(rate)))
        }
        return WAVFile(sampleRate: rate, channels: 1, samples: samples).serialized
    }

    @Test func playStreamsTheApplicationsWAVToTheCaller() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.serve("/tone.wav", contentType: "audio/wav", body: Self.toneWAV(frequency: 440, seconds: 1.5))
        h.app.set("/voice", "<Response><Play>/tone.wav</Play><Hangup/></Response>")
        let alice = try TestParty(try await h.client("alice", application: app.sid))
        let collector = Collector(alice)
        defer { collector.stop() }
        _ = try await alice.invite(to: "music")
        try await alice.connectMedia()
        let hangup = try await alice.expectHangup()
        #expect(hangup.code == nil)
        let frames = collector.received
        #expect(frames.count >= 60)  // 1.5 s at 50 frames/s, less what arrived before the peer listened
        let frequency = try ToneAudio.dominantFrequency(ofOpus: frames, analysisSeconds: 0.8)
        #expect(abs(frequency - 440) <= 6)
        await alice.close()
        await h.stop()
    }

    @Test func sayIsSpokenThenTheDocumentGoesOn() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.set("/voice", "<Response><Say>Welcome to Parley.</Say><Redirect>/next</Redirect></Response>")
        h.app.set("/next", "<Response><Hangup/></Response>")
        let alice = try TestParty(try await h.client("alice", application: app.sid))
        let collector = Collector(alice)
        defer { collector.stop() }
        _ = try await alice.invite(to: "ivr")
        try await alice.connectMedia()
        _ = try await alice.expectHangup(timeout: .seconds(15))
        #expect(collector.received.count >= 40)  // about a second of speech or more
        #expect(h.app.requests("/next").count == 1)
        await alice.close()
        await h.stop()
    }

    @Test func recordKeepsTheCallersAudioUntilTheFinishKey() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.set("/voice", ##"<Response><Record maxLength="10" timeout="5" finishOnKey="#" playBeep="false" action="/recorded"/></Response>"##)
        h.app.set("/recorded", "<Response><Hangup/></Response>")
        let alice = try TestParty(try await h.client("alice", application: app.sid))
        let callSid = try await alice.invite(to: "voicemail")
        try await alice.connectMedia()
        try await alice.expectConnected()
        try await ToneAudio.send(alice.peer, frequency: 600, seconds: 1.5)
        try await alice.signaling.send(.dtmf(DTMF(callSid: callSid, digits: "#")))
        _ = try await alice.expectHangup(timeout: .seconds(20))

        let recorded = try #require(h.app.requests("/recorded").first)
        #expect(recorded.signatureValid)
        #expect(recorded.parameters["Digits"] == "#")
        let duration = Int(recorded.parameters["RecordingDuration"] ?? "") ?? 0
        #expect((1...3).contains(duration))
        let url = try #require(recorded.parameters["RecordingUrl"])
        let sid = try #require(recorded.parameters["RecordingSid"])
        #expect(url.hasSuffix(sid))
        let row = try #require(try h.store.recording(sid: sid))
        #expect(row.callSid == callSid)

        let response = try await HTTPClient().get(url + ".wav")
        #expect(response.status == 200)
        let wav = try WAVFile(parsing: response.body)
        let samples = wav.samples.map(Double.init)
        let rate = Double(wav.sampleRate)
        // Goertzel at 600 Hz against a neighbour: the recorded tone is there.
        func power(_ f: Double) -> Double {
            let k = 2 * cos(2 * .pi * f / rate)
            var (s1, s2) = (0.0, 0.0)
            for x in samples { (s1, s2) = (x + k * s1 - s2, s1) }
            return s1 * s1 + s2 * s2 - k * s1 * s2
        }
        #expect(power(600) > 20 * power(1100))
        await alice.close()
        await h.stop()
    }

    @Test func dialRecordFromAnswerDualKeepsEachPartyOnItsOwnChannel() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.set("/voice", #"<Response><Dial record="record-from-answer-dual" action="/after"><Client>bob</Client></Dial></Response>"#)
        h.app.set("/after", "<Response><Hangup/></Response>")
        let bob = try TestParty(try await h.client("bob", listen: true))
        let alice = try TestParty(try await h.client("alice", application: app.sid))
        _ = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await alice.expectConnected()
        async let fromAlice: Void = ToneAudio.send(alice.peer, frequency: 500, seconds: 1.5)
        async let fromBob: Void = ToneAudio.send(bob.peer, frequency: 800, seconds: 1.5)
        _ = try await (fromAlice, fromBob)
        try await bob.signaling.send(.hangup(Hangup(callSid: incoming.callSid)))
        _ = try await alice.expectHangup(timeout: .seconds(20))

        let after = try #require(h.app.requests("/after").first)
        #expect(after.parameters["DialCallStatus"] == "completed")
        let url = try #require(after.parameters["RecordingUrl"])
        #expect(Int(after.parameters["RecordingDuration"] ?? "") ?? 0 >= 1)
        let wav = try WAVFile(parsing: try await HTTPClient().get(url + ".wav").body)
        #expect(wav.channels == 2)
        let rate = Double(wav.sampleRate)
        func power(channel: Int, _ f: Double) -> Double {
            let k = 2 * cos(2 * .pi * f / rate)
            var (s1, s2) = (0.0, 0.0)
            for i in stride(from: channel, to: wav.samples.count, by: 2) { (s1, s2) = (Double(wav.samples[i]) + k * s1 - s2, s1) }
            return s1 * s1 + s2 * s2 - k * s1 * s2
        }
        #expect(power(channel: 0, 500) > 20 * power(channel: 0, 800))  // the caller on the left
        #expect(power(channel: 1, 800) > 20 * power(channel: 1, 500))  // the callee on the right
        await alice.close()
        await bob.close()
        await h.stop()
    }
}
