import AccessToken
import AudioCore
import Foundation
import Glibc
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// The B2BUA against baresip 1.0 (Debian), a real SIP softphone: an endpoint made as Plivo's
/// Endpoint API makes them dials `sip:bob@<server>`; the server challenges the INVITE (407),
/// answers its offer with a media leg of its own and rings the WebRTC client `bob`, who answers.
/// Each side hears the other's tone through the transcoding relay (baresip's G.711 or Opus, bob's
/// Opus), and bob's hang-up reaches baresip as a BYE.
@Suite(.serialized, .tags(.interop)) struct SIPCallInteropTests {
    static let baresip = "/usr/bin/baresip"

    /// A WebRTC client offering Opus only: one that also offers the phone's G.711 is forwarded that
    /// codec, not transcoded (SIPForwardedCallInteropTests); the tests using this hear the relay.
    static var opusOnly: PeerConnection.Configuration {
        var configuration = PeerConnection.Configuration()
        configuration.audioCodecs = [.opus]
        return configuration
    }

    /// A 48 kHz mono WAV: `seconds` of a sine at `frequency` (baresip's `aufile` ends the call at its end).
    /// baresip's `aufile` wants the encoder's channel count: 2 for its `opus/48000/2`, 1 for G.711.
    static func toneWAV(_ frequency: Double, seconds: Double, channels: Int = 1) -> [UInt8] {
        var samples: [Int16] = []
        samples.reserveCapacity(Int(48_000 * seconds) * channels)
        for n in 0..<Int(48_000 * seconds) {
            let value = Int16(0.4 * 32_767 * sin(2 * Double.pi * frequency * Double(n) / 48_000))
            for _ in 0..<channels { samples.append(value) }
        }
        return WAVFile(sampleRate: 48_000, channels: channels, samples: samples).serialized
    }

    /// baresip's configuration directory: one account with the endpoint's password, audio from
    /// `source`, decoded audio dumped by `sndfile` into `dumps`.
    static func configure(_ dir: URL, user: String, password: String, server: String, source: URL, dumps: URL,
                          encryption: String?, answers: Bool = false) throws {
        let config = """
            poll_method epoll
            sip_listen 127.0.0.1:0
            sip_transports udp
            audio_source aufile,\(source.path)
            audio_player aufile,/dev/null
            ausrc_srate 48000
            audio_srate 8000-48000
            snd_path \(dumps.path)
            module_path /usr/lib/baresip/modules
            module stdio.so
            module g711.so
            module opus.so
            module aufile.so
            module sndfile.so
            \(encryption == nil ? "" : "module srtp.so")
            module_app account.so
            module_app menu.so
            rtp_ports 30000-39999
            net_interface 127.0.0.1
            """
        try config.write(to: dir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let account = "<sip:\(user)@\(server)>;auth_pass=\(password);" + (answers ? "regint=60;answermode=auto" : "regint=0;answermode=manual")
            + (encryption.map { ";mediaenc=\($0)" } ?? "") + "\n"
        try account.write(to: dir.appendingPathComponent("accounts"), atomically: true, encoding: .utf8)
    }

    /// A scratch directory (with `dumps/` for baresip's recordings) and a started `parley-server
    /// --sip` on loopback whose store lives in it; `configure` adds to the configuration.
    static func startServer(_ name: String, configure: (inout ServerConfiguration) -> Void = { _ in })
        throws -> (server: PlatformServer, dir: URL, config: ServerConfiguration) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("dumps"), withIntermediateDirectories: true)
        var config = ServerConfiguration()
        (config.port, config.mediaPort, config.databasePath) = (0, 0, dir.appendingPathComponent("parley.db").path)
        config.recordingsDirectory = dir.appendingPathComponent("recordings").path
        (config.sipHost, config.sipPort) = ("127.0.0.1", 0)
        config.mediaHost = "127.0.0.1"
        configure(&config)
        let server = try PlatformServer(configuration: config)
        try server.start()
        return (server, dir, config)
    }

    /// The dominant frequency of seconds 1–3 of what baresip decoded (sndfile's `dump-…-dec.wav`,
    /// its first channel, at the codec's rate); 0 when there is no dump.
    static func decodedFrequency(in dumps: URL) throws -> (frequency: Double, files: [String]) {
        let decoded = try FileManager.default.contentsOfDirectory(at: dumps, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix("-dec.wav") }
        return (decoded.first.map(dominantFrequency(ofWAV:)) ?? 0, decoded.map(\.lastPathComponent))
    }

    /// The dominant frequency of seconds 1–3 of a WAV file's first channel; 0 when it is not one.
    static func dominantFrequency(ofWAV file: URL) -> Double {
        guard let wav = try? WAVFile(parsing: [UInt8](Data(contentsOf: file))) else { return 0 }
        let first = stride(from: 0, to: wav.samples.count, by: wav.channels).map { Double(wav.samples[$0]) }
        let samples = Array(first.dropFirst(wav.sampleRate).prefix(wav.sampleRate * 2))
        return ToneAudio.dominantFrequency(upsample(samples, by: ToneAudio.rate / wav.sampleRate))
    }

    /// The endpoint `alice` (password `s3cret-pw`) a phone registers as, the server's SIP port,
    /// and the WebRTC client `bob` (Opus only), listening for calls.
    static func aliceAndListeningBob(_ server: PlatformServer, config: ServerConfiguration) async throws
        -> (endpoint: SIPEndpoint, sipPort: Int, bob: TestParty) {
        let endpoint = try server.store.createEndpoint(accountSid: server.defaultCredentials.account.sid, username: "alice",
                                                       password: "s3cret-pw", realm: config.sipRealm, alias: "Alice", applicationSid: nil)
        let sipPort = try #require(server.sipPorts?.udp)
        let token = try InProcessPlatform.token(server, identity: "bob", grants: [.voice(VoiceGrant(incomingAllow: true))])
        let bob = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token),
                                configuration: Self.opusOnly)
        try await bob.signaling.send(.listen)
        _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        return (endpoint, sipPort, bob)
    }

    /// Plain RTP, and SDES-SRTP as baresip offers it mandatory (RTP/SAVP with `a=crypto`, RFC 4568).
    @Test(.timeLimit(.minutes(2)), arguments: [nil, "srtp-mand"])
    func baresipCallsAWebRTCClientAndBothHearEachOther(encryption: String?) async throws {
        let (server, dir, config) = try Self.startServer("sipcall")
        let dumps = dir.appendingPathComponent("dumps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (endpoint, sipPort, bob) = try await Self.aliceAndListeningBob(server, config: config)

        let source = dir.appendingPathComponent("tone.wav")
        try Data(Self.toneWAV(1_000, seconds: 20)).write(to: source)
        try Self.configure(dir, user: endpoint.username, password: "s3cret-pw", server: "127.0.0.1:\(sipPort)", source: source, dumps: dumps,
                           encryption: encryption)
        let phone = try ChildProcess(executable: Self.baresip, arguments: ["-f", dir.path, "-e", "/dial sip:bob@127.0.0.1:\(sipPort)", "-t", "25"])
        defer { phone.kill() }

        let incoming = try await bob.expectIncoming()
        #expect(incoming.from.hasPrefix("sip:\(endpoint.username)@"))
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()

        let heard = Mutex<[[UInt8]]>([])
        let listener = Task {
            for await packet in bob.peer.audio where packet.payload.count > 2 { heard.withLock { $0.append(packet.payload) } }
        }
        try await ToneAudio.send(bob.peer, frequency: 600, seconds: 4)
        listener.cancel()
        try await bob.signaling.send(.hangup(Hangup(callSid: incoming.callSid)))
        let byeReached = await phone.waitForOutput("terminated", timeout: .seconds(10))
        try await Task.sleep(for: .milliseconds(300))  // sndfile closes its dump as the call ends
        phone.kill()
        let frames = heard.withLock { $0 }
        let atBob = try ToneAudio.dominantFrequency(ofOpus: Array(frames.dropFirst(50)), analysisSeconds: 1.5)

        // What baresip decoded (the far end's audio).
        let (atPhone, decoded) = try Self.decodedFrequency(in: dumps)
        print("baresip → bob: \(frames.count) Opus frames, dominant \(atBob) Hz; bob → baresip: dominant \(atPhone) Hz "
              + "(\(decoded)); "
              + "\(phone.stdout.split(separator: "\n").filter { $0.contains("decoder") || $0.lowercased().contains("srtp") }.prefix(4))")
        await bob.close()
        await server.shutdown()
        #expect(abs(atBob - 1_000) < 20, "baresip's tone at bob: \(atBob) Hz\n\(phone.stdout.suffix(3000))")
        #expect(abs(atPhone - 600) < 20, "bob's tone at baresip: \(atPhone) Hz\n\(phone.stdout.suffix(3000))")
        #expect(byeReached, "\(phone.stdout.suffix(2000))")
    }

    /// Repeats each sample (the Goertzel scan runs at 48 kHz).
    static func upsample(_ x: [Double], by factor: Int) -> [Double] {
        guard factor > 1 else { return x }
        return x.flatMap { Array(repeating: $0, count: factor) }
    }

    /// An endpoint `username` (password `s3cret-pw`) and an application whose TwiML dials it,
    /// `<Dial><Sip>sip:<endpoint>@127.0.0.1:<SIP port></Sip></Dial>`, served by the returned app.
    static func dialSipSetup(_ server: PlatformServer, config: ServerConfiguration, username: String) throws
        -> (endpoint: SIPEndpoint, app: TwiMLTestApp, application: Application) {
        let account = server.defaultCredentials.account
        let endpoint = try server.store.createEndpoint(accountSid: account.sid, username: username, password: "s3cret-pw",
                                                       realm: config.sipRealm, alias: username.capitalized, applicationSid: nil)
        let app = try TwiMLTestApp(authToken: account.authToken)
        app.set("/voice", "<Response><Dial><Sip>sip:\(endpoint.username)@127.0.0.1:\(server.sipPorts?.udp ?? 0)</Sip></Dial></Response>")
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "to SIP", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: account.sid)
        return (endpoint, app, application)
    }

    /// The other way: baresip registers as the endpoint and auto-answers; the WebRTC client alice's
    /// application answers `<Dial><Sip>sip:<endpoint>@<server></Sip></Dial>`, which the server
    /// sends to the endpoint's registered contact. Both hear each other; alice's hang-up is a BYE.
    @Test(.timeLimit(.minutes(2))) func dialSipReachesARegisteredBaresipAndBothHearEachOther() async throws {
        let (server, dir, config) = try Self.startServer("sipdial")
        let dumps = dir.appendingPathComponent("dumps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let credentials = server.defaultCredentials
        let (endpoint, app, application) = try Self.dialSipSetup(server, config: config, username: "carol")
        let sipPort = try #require(server.sipPorts?.udp)

        let source = dir.appendingPathComponent("tone.wav")
        try Data(Self.toneWAV(1_000, seconds: 20, channels: 2)).write(to: source)
        try Self.configure(dir, user: endpoint.username, password: "s3cret-pw", server: "127.0.0.1:\(sipPort)", source: source,
                           dumps: dumps, encryption: nil, answers: true)
        let phone = try ChildProcess(executable: Self.baresip, arguments: ["-f", dir.path, "-t", "30"])
        defer { phone.kill() }
        var registered = false
        for _ in 0..<100 where !registered {
            registered = !((try? server.store.sipBindings(accountSid: credentials.account.sid, aor: "sip:\(endpoint.username)@127.0.0.1")) ?? []).isEmpty
            if !registered { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(registered, "\(phone.stdout.suffix(2000))")

        let token = try InProcessPlatform.token(server, identity: "alice",
                                                grants: [.voice(VoiceGrant(incomingAllow: false, outgoingApplicationSid: application.sid))])
        let alice = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token))
        let callSid = try await alice.invite(to: "carol")
        try await alice.connectMedia()
        try await alice.expectConnected()

        let heard = Mutex<[[UInt8]]>([])
        let listener = Task {
            for await packet in alice.peer.audio where packet.payload.count > 2 { heard.withLock { $0.append(packet.payload) } }
        }
        try await ToneAudio.send(alice.peer, frequency: 600, seconds: 4)
        listener.cancel()
        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        let byeReached = await phone.waitForOutput("terminated", timeout: .seconds(10))
        try await Task.sleep(for: .milliseconds(300))
        phone.kill()
        let frames = heard.withLock { $0 }
        let atAlice = try ToneAudio.dominantFrequency(ofOpus: Array(frames.dropFirst(50)), analysisSeconds: 1.5)
        let atPhone = try Self.decodedFrequency(in: dumps).frequency
        let child = app.requests("/voice").first
        print("alice → <Dial><Sip> → baresip: alice heard \(frames.count) Opus frames, dominant \(atAlice) Hz; baresip heard \(atPhone) Hz")
        await alice.close()
        await server.shutdown()
        #expect(child?.signatureValid == true)
        #expect(abs(atAlice - 1_000) < 20, "baresip's tone at alice: \(atAlice) Hz\n\(phone.stdout.suffix(3000))")
        #expect(abs(atPhone - 600) < 20, "alice's tone at baresip: \(atPhone) Hz\n\(phone.stdout.suffix(3000))")
        #expect(byeReached, "\(phone.stdout.suffix(2000))")
    }
}

/// `<Dial><Number>` through a trunk: sipp 3.6's built-in UAS plays the carrier (`--sip-trunk`),
/// answers with PCMU and echoes the RTP it gets (`-rtp_echo`); the WebRTC caller hears its own
/// tone come back through the transcoding relay, and its hang-up ends sipp's scenario with a BYE.
@Suite(.serialized, .tags(.interop)) struct SIPTrunkInteropTests {
    @Test(.timeLimit(.minutes(2))) func dialNumberGoesThroughTheTrunkAndMediaFlowsBothWays() async throws {
        let trunkPort = try Self.freeUDPPort()
        let carrier = try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "-sn", "uas", "-rtp_echo", "-i", "127.0.0.1", "-p", String(trunkPort), "-mp", String(try Self.freeUDPPort()),
            "-cp", "0", "-m", "1", "-nostdin", "-timeout", "40",
        ])
        defer { carrier.kill() }
        let (server, dir, _) = try SIPCallInteropTests.startServer("trunk") { $0.sipTrunk = "127.0.0.1:\(trunkPort)" }
        defer { try? FileManager.default.removeItem(at: dir) }
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        app.set("/voice", #"<Response><Dial callerId="+15550001111"><Number>+1 555 123 4567</Number></Dial></Response>"#)
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "to a number", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: credentials.account.sid)
        // sipp's 180 Ringing rings the caller before its 200 OK connects it.
        let call = try await SIPToneCall.run(server, applicationSid: application.sid, to: "+15551234567", expectRinging: true)
        let carrierDone = await carrier.wait(timeout: .seconds(10))
        let echoed = try ToneAudio.dominantFrequency(ofOpus: Array(call.frames.dropFirst(75)), analysisSeconds: 1.5)
        let child = try server.store.calls(CallQuery(accountSid: credentials.account.sid, parentCallSid: call.callSid)).first
        print("<Dial><Number> through sipp: alice heard \(call.frames.count) Opus frames, dominant \(echoed) Hz; child \(child?.to ?? "-") "
              + "\(child?.status.rawValue ?? "-"); sipp exit \(carrier.process.isRunning ? -1 : Int(carrier.process.terminationStatus))")
        await server.shutdown()
        #expect(abs(echoed - 600) < 20, "\(carrier.stdout.suffix(2000))\n\(carrier.stderr.suffix(2000))")
        #expect(child?.to == "sip:+15551234567@127.0.0.1:\(trunkPort);user=phone")
        #expect(carrierDone && carrier.process.terminationStatus == 0, "\(carrier.stderr.suffix(2000))")
    }

    /// A UDP port free now (bound and closed at once, before sipp binds it).
    static func freeUDPPort() throws -> Int { try FreePort.udp() }
}
