import AccessToken
import AudioCore
import Foundation
import ParleyServer
import ParleyStore
import Signaling
import ParleyTestSupport
import Synchronization
import Testing
import WebRTC

/// Speech both ways between baresip (a real SIP phone, G.711 μ-law, which the server picks for
/// it) and the WebRTC client `bob` (Opus) through the B2BUA's transcoding relay, scored with
/// PESQ-WB (ITU-T P.862.2) against the espeak-ng original: baresip plays the speech from a file
/// while bob plays it too; bob's decoded Opus and baresip's decoded dump are each compared with it.
/// G.711 itself caps espeak speech near 3.0 (sox μ-law alone 2.98–3.03, test-peers.md), so the
/// bar (2.2; 2.5–2.7 measured on 12 s of speech, 2.8–3.0 on 46 s) is set against that, not against Opus.
@Suite(.serialized, .tags(.interop)) struct SIPSpeechInteropTests {
    @Test(.timeLimit(.minutes(3))) func speechCrossesTheB2BUABothWays() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("sipspeech")
        let dumps = dir.appendingPathComponent("dumps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (endpoint, sipPort, bob) = try await SIPCallInteropTests.aliceAndListeningBob(server, config: config)

        let (speech, seconds, source) = try Self.phoneSpeech(in: dir)

        try SIPCallInteropTests.configure(dir, user: endpoint.username, password: "s3cret-pw", server: "127.0.0.1:\(sipPort)",
                                          source: source, dumps: dumps, encryption: nil)
        let phone = try Self.dialBob(dir, sipPort: sipPort, seconds: seconds)
        defer { phone.kill() }
        let incoming = try await Self.answer(bob)

        let heard = Mutex<[[UInt8]]>([])
        let listener = Task {
            for await packet in bob.peer.audio where packet.payload.count > 2 { heard.withLock { $0.append(packet.payload) } }
        }
        // bob speaks while baresip does; then both have 1.5 s more for the tail to arrive.
        try await ToneAudio.send(bob.peer, samples: speech + [Int16](repeating: 0, count: 72_000))
        listener.cancel()
        try await bob.signaling.send(.hangup(Hangup(callSid: incoming.callSid)))
        _ = await phone.waitForOutput("terminated", timeout: .seconds(10))
        try await Task.sleep(for: .milliseconds(300))  // sndfile closes its dump as the call ends
        phone.kill()
        await bob.close()
        await server.shutdown()

        let atBob = try ToneAudio.decode(opus: heard.withLock { $0 })
        let decoded = try FileManager.default.contentsOfDirectory(at: dumps, includingPropertiesForKeys: nil)
            .first { $0.lastPathComponent.hasSuffix("-dec.wav") }
        let dump = try WAVFile(parsing: [UInt8](Data(contentsOf: try #require(decoded, "baresip wrote no decoded dump"))))
        let atPhone = stride(from: 0, to: dump.samples.count, by: dump.channels).map { dump.samples[$0] }
        let reference = try SpeechMaterial.resample(speech, from: 48_000, to: 16_000)
        let scores = try SpeechMaterial.pesq([(reference, try SpeechMaterial.resample(atBob, from: 48_000, to: 16_000)),
                                              (reference, try SpeechMaterial.resample(atPhone, from: dump.sampleRate, to: 16_000))],
                                             packageRoot: Python.packageRoot)
        print("SIP speech, PESQ-WB: baresip (PCMU) → bob (Opus) \(scores[0]); bob (Opus) → baresip (PCMU) \(scores[1]) "
              + "(\(String(format: "%.1f", seconds)) s of speech, baresip's dump at \(dump.sampleRate) Hz)")
        #expect(scores[0] >= 2.2, "baresip → bob: PESQ-WB \(scores[0])")
        #expect(scores[1] >= 2.2, "bob → baresip: PESQ-WB \(scores[1])")
    }

    /// baresip, configured in `dir`, calling `bob` for up to 2 × `seconds` + 30 s.
    static func dialBob(_ dir: URL, sipPort: Int, seconds: Double) throws -> ChildProcess {
        try ChildProcess(executable: SIPCallInteropTests.baresip,
                         arguments: ["-f", dir.path, "-e", "/dial sip:bob@127.0.0.1:\(sipPort)", "-t", String(Int(2 * seconds + 30))])
    }

    /// `bob` accepts the incoming call, its media connects and the server says `connected`.
    static func answer(_ bob: TestParty) async throws -> Incoming {
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        return incoming
    }

    /// espeak-ng speech (48 kHz) and its length, and the file baresip plays: its `aufile` ends the
    /// call at the end of the file, so half a second of silence, the speech, then silence while
    /// the other side speaks and the call ends.
    static func phoneSpeech(in dir: URL) throws -> (speech: [Int16], seconds: Double, source: URL) {
        let spoken = dir.appendingPathComponent("speech.wav").path
        try SpeechMaterial.speak("The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.", to: spoken)
        let speech = try SpeechMaterial.load(spoken, rate: 48_000)
        let seconds = Double(speech.count) / 48_000
        let source = dir.appendingPathComponent("phone.wav")
        let padded = [Int16](repeating: 0, count: 24_000) + speech + [Int16](repeating: 0, count: Int((seconds + 15) * 48_000))
        try Data(WAVFile(sampleRate: 48_000, channels: 1, samples: padded).serialized).write(to: source)
        return (speech, seconds, source)
    }
}
