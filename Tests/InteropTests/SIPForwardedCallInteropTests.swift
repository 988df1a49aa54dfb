import AccessToken
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

/// A call whose legs negotiated the same codec is forwarded across transports, not transcoded:
/// baresip with G.711 only (a PCMU phone) calls the WebRTC client `bob`, who offers PCMU only (as a
/// Voice SDK client with `preferredAudioCodecs = [.pcmu]` does). Speech goes both ways; `/metrics`
/// shows two cross-transport forwards (one per direction), packets handed across the media loops,
/// and no transcoding relay. Each side's audio is scored with PESQ-WB against the espeak-ng
/// original (G.711 itself caps espeak speech near 3.0; the bar is the transcoded test's, 2.2).
@Suite(.serialized, .tags(.interop)) struct SIPForwardedCallInteropTests {
    @Test(.timeLimit(.minutes(3))) func pcmuPhoneAndPCMUClientAreForwardedBothWays() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("sipforward")
        let dumps = dir.appendingPathComponent("dumps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let outcome: (metrics: [String: Int], heard: [[UInt8]], dump: WAVFile, speech: [Int16], seconds: Double)
        do {
            outcome = try await Self.forwardedCall(server, config: config, dir: dir, dumps: dumps)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        let (metrics, heard, dump, speech, seconds) = outcome

        print("SIP forwarded call, /metrics: \(metrics.filter { $0.key.hasPrefix("parley_media_cross") || $0.key.hasPrefix("parley_media_trans") })")
        #expect(metrics["parley_media_cross_transport_forwards_total"] == 2)
        #expect(metrics["parley_media_transcoding_relays_total"] == 0)
        #expect((metrics["parley_media_cross_transport_forwarded_packets_total"] ?? 0) > 2 * 50 * Int(seconds))

        let atBob = heard.flatMap { $0.map(G711.muLawDecode) }
        let atPhone = stride(from: 0, to: dump.samples.count, by: dump.channels).map { dump.samples[$0] }
        let reference = try SpeechMaterial.resample(speech, from: 48_000, to: 16_000)
        let scores = try SpeechMaterial.pesq([(reference, try SpeechMaterial.resample(atBob, from: 8_000, to: 16_000)),
                                              (reference, try SpeechMaterial.resample(atPhone, from: dump.sampleRate, to: 16_000))],
                                             packageRoot: Python.packageRoot)
        print("SIP forwarded speech, PESQ-WB: baresip (PCMU) → bob (PCMU) \(scores[0]); bob → baresip \(scores[1]) "
              + "(\(String(format: "%.1f", seconds)) s of speech)")
        #expect(scores[0] >= 2.2, "baresip → bob: PESQ-WB \(scores[0])")
        #expect(scores[1] >= 2.2, "bob → baresip: PESQ-WB \(scores[1])")
    }

    /// Sets up `alice` and a PCMU-only `bob`, then runs the call (bob closed even on failure).
    static func forwardedCall(_ server: PlatformServer, config: ServerConfiguration, dir: URL, dumps: URL) async throws
        -> (metrics: [String: Int], heard: [[UInt8]], dump: WAVFile, speech: [Int16], seconds: Double) {
        let endpoint = try server.store.createEndpoint(accountSid: server.defaultCredentials.account.sid, username: "alice",
                                                       password: "s3cret-pw", realm: config.sipRealm, alias: "Alice", applicationSid: nil)
        let sipPort = try #require(server.sipPorts?.udp)
        let token = try InProcessPlatform.token(server, identity: "bob", grants: [.voice(VoiceGrant(incomingAllow: true))])
        var pcmuOnly = PeerConnection.Configuration()
        pcmuOnly.audioCodecs = [.pcmu]
        let bob = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token),
                                configuration: pcmuOnly)
        try await bob.signaling.send(.listen)
        _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        do {
            return try await talk(server, bob: bob, user: endpoint.username, sipPort: sipPort, dir: dir, dumps: dumps)
        } catch {
            await bob.close()
            throw error
        }
    }

    /// baresip (G.711 only) calls bob; both speak; `/metrics` is read before the hang-up.
    static func talk(_ server: PlatformServer, bob: TestParty, user: String, sipPort: Int, dir: URL, dumps: URL) async throws
        -> (metrics: [String: Int], heard: [[UInt8]], dump: WAVFile, speech: [Int16], seconds: Double) {

        let (speech, seconds, source) = try SIPSpeechInteropTests.phoneSpeech(in: dir)
        try SIPCallInteropTests.configure(dir, user: user, password: "s3cret-pw", server: "127.0.0.1:\(sipPort)",
                                          source: source, dumps: dumps, encryption: nil)
        // A G.711-only phone: without the Opus module baresip offers PCMU and PCMA.
        let configFile = dir.appendingPathComponent("config")
        try String(contentsOf: configFile, encoding: .utf8).replacingOccurrences(of: "module opus.so\n", with: "")
            .write(to: configFile, atomically: true, encoding: .utf8)

        let phone = try SIPSpeechInteropTests.dialBob(dir, sipPort: sipPort, seconds: seconds)
        defer { phone.kill() }   // ended however the call ends
        let incoming = try await SIPSpeechInteropTests.answer(bob)

        let heard = Mutex<[[UInt8]]>([])
        let listener = Task {
            for await packet in bob.peer.audio where packet.payloadType == 0 { heard.withLock { $0.append(packet.payload) } }
        }
        try await Self.sendPCMU(bob.peer, samples: try SpeechMaterial.resample(speech, from: 48_000, to: 8_000)
                                + [Int16](repeating: 0, count: 12_000))
        listener.cancel()
        let metrics = try await SIPWebSocketInteropTests.metrics(server, prefix: "parley_media_")
        try await bob.signaling.send(.hangup(Hangup(callSid: incoming.callSid)))
        _ = await phone.waitForOutput("terminated", timeout: .seconds(10))
        let dump = try await Self.decodedDump(in: dumps, atLeast: speech.count / 6)
        phone.kill()
        await bob.close()
        return (metrics, heard.withLock { $0 }, dump, speech, seconds)

    }

    /// Sends 8 kHz mono `samples` as 20 ms PCMU frames, paced in real time.
    static func sendPCMU(_ pc: PeerConnection, samples: [Int16]) async throws {
        let start = ContinuousClock.now
        for (i, first) in stride(from: 0, to: samples.count, by: 160).enumerated() {
            let frame = (first..<first + 160).map { $0 < samples.count ? G711.muLawEncode(samples[$0]) : G711.muLawEncode(0) }
            pc.sendAudio(payload: frame, timestampIncrement: 160)
            try await Task.sleep(until: start + .milliseconds(20 * (i + 1)), clock: .continuous)
        }
    }

    /// baresip's decoded dump once sndfile has closed it (its header then counts the samples).
    static func decodedDump(in dumps: URL, atLeast samples: Int) async throws -> WAVFile {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let files = (try? FileManager.default.contentsOfDirectory(at: dumps, includingPropertiesForKeys: nil)) ?? []
            if let file = files.first(where: { $0.lastPathComponent.hasSuffix("-dec.wav") }),
               let wav = try? WAVFile(parsing: [UInt8](Data(contentsOf: file))), wav.frameCount >= samples {
                return wav
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw SIPForwardFailure(description: "baresip wrote no complete decoded dump in \(dumps.path)")
    }
}

struct SIPForwardFailure: Error, CustomStringConvertible { let description: String }
