import AccessToken
import AudioCore
import AudioDevices
import Foundation
import ParleyCore
import ParleyEndpoint
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// Calls between the endpoint SDK (a SIP UA registered with a `plivo`-created endpoint) and a
/// WebRTC client of the Voice SDK protocol, through a real `parley-server --sip`: each side plays
/// a tone and hears the other's (the endpoint through its audio engine into a WAV file); the
/// endpoint's keys reach a `<Gather>`; hang-ups both ways.
@Suite(.serialized, .tags(.interop)) struct EndpointCallInteropTests {
    /// An endpoint whose microphone plays `speech` (a WAV file, once) or else loops a 1 kHz tone,
    /// and whose speaker is `record`.
    static func endpoint(_ server: PlatformServer, record: URL, dir: URL, speech: URL? = nil,
                         delegate: (any EndpointDelegate)? = nil) throws -> (Endpoint, FileAudioDevice) {
        let source = speech ?? dir.appendingPathComponent("endpoint-tone.wav")
        if speech == nil { try Data(SIPCallInteropTests.toneWAV(1_000, seconds: 20)).write(to: source) }
        let device = try FileAudioDevice(inputPath: source.path, outputPath: record.path, looping: speech == nil)
        let port = try #require(server.sipPorts?.udp)
        return (try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1:\(port)", audioDevice: device), delegate: delegate), device)
    }

    /// What a WebRTC party hears, in phases: one listener for the whole call (a peer's audio
    /// stream ends when its reader is cancelled), its frames filed under the phase in force.
    final class Ears: Sendable {
        final class Log: Sendable {
            let state = Mutex<(phase: Int, heard: [Int: [PeerConnection.ReceivedRTP]])>((0, [:]))
        }
        private let log = Log()
        private let listener: Task<Void, Never>

        init(_ party: TestParty) {
            let log = self.log
            listener = Task {
                for await packet in party.peer.audio where packet.payload.count > 2 {
                    log.state.withLock { $0.heard[$0.phase, default: []].append(packet) }
                }
            }
        }

        /// Files what is heard from now on under `phase`.
        func begin(_ phase: Int) { log.state.withLock { $0.phase = phase } }

        /// The packets heard in `phase`: the codec's payloads, and RFC 4733 events' (`telephoneEvent`).
        func heard(_ phase: Int, telephoneEvent: UInt8? = nil) -> (audio: [[UInt8]], events: [PeerConnection.ReceivedRTP]) {
            let packets = log.state.withLock { $0.heard[phase] ?? [] }
            return (packets.filter { $0.payloadType != telephoneEvent }.map(\.payload), packets.filter { $0.payloadType == telephoneEvent })
        }

        /// Sends a 600 Hz tone for 4 s as phase `phase`; returns how many frames were heard
        /// meanwhile and their dominant frequency (after the first second).
        func exchange(_ party: TestParty, phase: Int) async throws -> (frames: Int, dominant: Double) {
            begin(phase)
            try await ToneAudio.send(party.peer, frequency: 600, seconds: 4)
            let frames = heard(phase).audio
            return (frames.count, try ToneAudio.dominantFrequency(ofOpus: Array(frames.dropFirst(50)), analysisSeconds: 1.5))
        }

        func stop() { listener.cancel() }
    }

    static func toneExchange(_ party: TestParty) async throws -> (frames: Int, dominant: Double) {
        let ears = Ears(party)
        defer { ears.stop() }
        return try await ears.exchange(party, phase: 0)
    }

    /// What the endpoint's speaker got: dominant frequency of seconds 1–3 of the recording.
    static func heardAtEndpoint(_ record: URL) -> Double { SIPCallInteropTests.dominantFrequency(ofWAV: record) }

    @Test(.timeLimit(.minutes(3))) func endpointCallsAWebRTCClientAndBothHearEachOther() async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("endpoint-call")
        defer { try? FileManager.default.removeItem(at: dir) }
        let record = dir.appendingPathComponent("endpoint-heard.wav")
        do {
            let username = try await EndpointLoginInteropTests.plivoEndpoint(server, dir: dir, username: "alice")
            let token = try InProcessPlatform.token(server, identity: "bob", grants: [.voice(VoiceGrant(incomingAllow: true))])
            let bob = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token))
            try await bob.signaling.send(.listen)
            _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }

            let (endpoint, _) = try Self.endpoint(server, record: record, dir: dir)
            try await endpoint.login(username: username, password: EndpointLoginInteropTests.password)
            let outgoing = try endpoint.createOutgoingCall()
            let start = ContinuousClock.now
            let placing = Task { try await outgoing.call("bob", headers: ["X-PH-Ticket": "T-42"]) }
            let incoming = try await bob.expectIncoming()
            #expect(incoming.from.hasPrefix("sip:\(username)@"))
            try await bob.accept(incoming.callSid)
            try await placing.value
            let setup = (ContinuousClock.now - start).milliseconds
            try await bob.expectConnected()
            #expect(outgoing.state == .answered)
            #expect(endpoint.getCallUUID() == outgoing.callUUID)

            let ears = Ears(bob)
            defer { ears.stop() }
            let (frames, atBob) = try await ears.exchange(bob, phase: 0)

            // Hold (re-INVITE a=sendonly, RFC 3264 §8.4): bob no longer hears the endpoint's tone;
            // unhold (a=sendrecv): he does again. The first second of each window is not analysed.
            outgoing.hold()
            #expect(outgoing.isOnHold)
            let (_, atBobHeld) = try await ears.exchange(bob, phase: 1)
            outgoing.unhold()
            let (_, atBobResumed) = try await ears.exchange(bob, phase: 2)
            print("endpoint hold: bob heard \(atBobHeld) Hz while held, \(atBobResumed) Hz after unhold")
            #expect(abs(atBobHeld - 1_000) > 50, "the endpoint's tone still reached bob while held")
            #expect(abs(atBobResumed - 1_000) < 20, "the endpoint's tone at bob after unhold: \(atBobResumed) Hz")

            // The endpoint hangs up: BYE, and bob's call ends.
            outgoing.hangup()
            let outcome = await outgoing.waitForEnd()
            let hangup = try await bob.expectHangup()
            let atEndpoint = Self.heardAtEndpoint(record)
            print("endpoint → bob: INVITE→200 (incl. bob's answer) \(Int(setup)) ms; bob heard \(frames) frames, "
                  + "dominant \(atBob) Hz; the endpoint heard \(atEndpoint) Hz")
            #expect(outcome == .hungUp(byUs: true))
            #expect(hangup.callSid == incoming.callSid)
            #expect(endpoint.getLastCallUUID() == outgoing.callUUID)
            #expect(endpoint.getCallUUID() == nil)
            #expect(abs(atBob - 1_000) < 20, "the endpoint's tone at bob: \(atBob) Hz")
            #expect(abs(atEndpoint - 600) < 20, "bob's tone at the endpoint: \(atEndpoint) Hz")
            await endpoint.logout()
            await bob.close()
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// A WebRTC client `alice` calling the endpoint, answered: her application's `<Dial><Sip>` to
    /// the endpoint's registered contact, her custom parameters `params`.
    struct AnsweredCall {
        let endpoint: Endpoint
        let device: FileAudioDevice
        let app: TwiMLTestApp
        let alice: TestParty
        let callSid: String
        let incoming: ParleyEndpoint.Incoming
    }

    /// `alice` calls the endpoint `carol` (whose microphone is `speech` or a 1 kHz tone, whose
    /// speaker is `record`); the endpoint answers from `incomingCalls`; alice's media connects.
    static func aliceCallsTheEndpoint(_ server: PlatformServer, dir: URL, record: URL, speech: URL? = nil,
                                      delegate: (any EndpointDelegate)? = nil, params: [String: String] = [:]) async throws -> AnsweredCall {
        let username = try await EndpointLoginInteropTests.plivoEndpoint(server, dir: dir, username: "carol")
        let account = server.defaultCredentials.account
        let app = try TwiMLTestApp(authToken: account.authToken)
        app.set("/voice", "<Response><Dial><Sip>sip:\(username)@127.0.0.1:\(server.sipPorts?.udp ?? 0)</Sip></Dial></Response>")
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "to endpoint", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: account.sid)
        let (endpoint, device) = try Self.endpoint(server, record: record, dir: dir, speech: speech, delegate: delegate)
        try await endpoint.login(username: username, password: EndpointLoginInteropTests.password)

        let token = try InProcessPlatform.token(server, identity: "alice",
                                                grants: [.voice(VoiceGrant(incomingAllow: false, outgoingApplicationSid: application.sid))])
        let alice = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token))
        let callSid = try await alice.invite(to: "carol", params: params)
        var calls = endpoint.incomingCalls.makeAsyncIterator()
        let incoming = try #require(await calls.next())
        #expect(incoming.state == .ringing)
        try await incoming.answer()
        try await alice.connectMedia()
        try await alice.expectConnected()
        return AnsweredCall(endpoint: endpoint, device: device, app: app, alice: alice, callSid: callSid, incoming: incoming)
    }

    /// The other way: a WebRTC client's application dials the endpoint (`<Dial><Sip>` to its
    /// registered contact); the endpoint answers from `incomingCalls`; both hear each other; the
    /// caller's hang-up ends the endpoint's call (`onIncomingCallHangup`).
    @Test(.timeLimit(.minutes(2))) func aWebRTCClientCallsTheEndpointAndBothHearEachOther() async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("endpoint-answer")
        defer { try? FileManager.default.removeItem(at: dir) }
        let record = dir.appendingPathComponent("endpoint-heard.wav")
        do {
            let call = try await Self.aliceCallsTheEndpoint(server, dir: dir, record: record)
            let (frames, atAlice) = try await Self.toneExchange(call.alice)
            try await call.alice.signaling.send(.hangup(Hangup(callSid: call.callSid)))
            let outcome = await call.incoming.waitForEnd()
            let atEndpoint = Self.heardAtEndpoint(record)
            print("alice → <Dial><Sip> → endpoint: alice heard \(frames) frames, dominant \(atAlice) Hz; the endpoint heard \(atEndpoint) Hz")
            #expect(outcome == .hungUp(byUs: false))
            #expect(abs(atAlice - 1_000) < 20, "the endpoint's tone at alice: \(atAlice) Hz")
            #expect(abs(atEndpoint - 600) < 20, "alice's tone at the endpoint: \(atEndpoint) Hz")
            await call.endpoint.logout()
            await call.alice.close()
            await call.app.shutdown()
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Collects the keys the far end pressed.
    final class Keys: EndpointDelegate {
        let digits = Mutex("")
        func onIncomingDigit(_ digit: String) { digits.withLock { $0 += digit } }
    }

    /// Issue 19: speech both ways between the endpoint and a WebRTC client through the B2BUA,
    /// scored with PESQ-WB (ITU-T P.862.2) against the espeak-ng original (the endpoint plays it
    /// from its microphone file while alice sends it; each side's received audio is compared);
    /// alice's custom parameters reach the endpoint as `X-PH-` headers (`Incoming.extraHeaders`);
    /// keys both ways: alice's `dtmf` reaches `onIncomingDigit`, the endpoint's `sendDigits` reaches
    /// alice as RFC 4733 events.
    @Test(.timeLimit(.minutes(3))) func speechHeadersAndKeysBetweenAWebRTCClientAndTheEndpoint() async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("endpoint-speech")
        defer { try? FileManager.default.removeItem(at: dir) }
        let record = dir.appendingPathComponent("endpoint-heard.wav")
        let keys = Keys()
        do {
            let (speech, seconds, _) = try SIPSpeechInteropTests.phoneSpeech(in: dir)
            let source = dir.appendingPathComponent("endpoint-speech.wav")
            let padded = [Int16](repeating: 0, count: 24_000) + speech + [Int16](repeating: 0, count: 30 * 48_000)
            try Data(WAVFile(sampleRate: 48_000, channels: 1, samples: padded).serialized).write(to: source)
            let call = try await Self.aliceCallsTheEndpoint(server, dir: dir, record: record, speech: source, delegate: keys,
                                                            params: ["Ticket": "T-42"])
            #expect(call.incoming.extraHeaders["X-PH-Ticket"] == "T-42", "the endpoint's headers: \(call.incoming.extraHeaders)")

            // Speech both ways at once (the endpoint's began at its answer, before alice's, so it has
            // ended when hers and 1.5 s of silence have); the endpoint's file goes on with silence: its
            // keys go out with its captured audio.
            let ears = Ears(call.alice)
            defer { ears.stop() }
            try await ToneAudio.send(call.alice.peer, samples: speech + [Int16](repeating: 0, count: 72_000))
            #expect(!call.device.hasReachedEndOfInput)
            let rendered = call.device.renderedFrameCount
            ears.begin(1)

            // Keys: alice → endpoint over signaling (relayed as RFC 4733), endpoint → alice in its media.
            try await call.alice.signaling.send(.dtmf(DTMF(callSid: call.callSid, digits: "1#")))
            try call.incoming.sendDigits("9*")
            let telephoneEvent = try #require(await call.alice.peer.statistics().telephoneEventPayloadType)
            let deadline = ContinuousClock.now + .seconds(10)
            func alicesKeys() -> String {
                let events = ears.heard(1, telephoneEvent: telephoneEvent).events
                let firsts = Dictionary(grouping: events, by: \.timestamp).values.compactMap { $0.min { $0.sequenceNumber < $1.sequenceNumber } }
                return String(firsts.sorted { $0.sequenceNumber < $1.sequenceNumber }.compactMap { Self.key($0.payload[0]) })
            }
            while ContinuousClock.now < deadline, keys.digits.withLock({ $0 }) != "1#" || alicesKeys() != "9*" {
                try await Task.sleep(for: .milliseconds(50))
            }
            call.endpoint.delegateQueue.sync {}
            let atEndpointKeys = keys.digits.withLock { $0 }
            let atAliceKeys = alicesKeys()

            try await call.alice.signaling.send(.hangup(Hangup(callSid: call.callSid)))
            #expect(await call.incoming.waitForEnd() == .hungUp(byUs: false))
            await call.endpoint.logout()
            await call.alice.close()
            await call.app.shutdown()
            ears.stop()

            let atAlice = try ToneAudio.decode(opus: ears.heard(0, telephoneEvent: telephoneEvent).audio)
            let recording = try WAVFile(parsing: [UInt8](Data(contentsOf: record)))
            let atEndpoint = Array(recording.samples.prefix(rendered * recording.channels))
            let reference = try SpeechMaterial.resample(speech, from: 48_000, to: 16_000)
            let scores = try SpeechMaterial.pesq([(reference, try SpeechMaterial.resample(atAlice, from: 48_000, to: 16_000)),
                                                  (reference, try SpeechMaterial.resample(atEndpoint, from: recording.sampleRate, to: 16_000))],
                                                 packageRoot: Python.packageRoot)
            print("endpoint speech, PESQ-WB: endpoint → alice (Opus) \(scores[0]); alice → endpoint \(scores[1]) "
                  + "(\(String(format: "%.1f", seconds)) s of speech); keys: alice → endpoint \"\(atEndpointKeys)\", "
                  + "endpoint → alice \"\(atAliceKeys)\"; X-PH-Ticket at the endpoint: \(call.incoming.extraHeaders["X-PH-Ticket"] ?? "none")")
            #expect(scores[0] > 2.0, "endpoint → alice: PESQ-WB \(scores[0])")
            #expect(scores[1] > 2.0, "alice → endpoint: PESQ-WB \(scores[1])")
            #expect(atEndpointKeys == "1#")
            #expect(atAliceKeys == "9*")
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// An RFC 4733 event code as its key (0–9, `*`, `#`, A–D).
    static func key(_ event: UInt8) -> Character? {
        switch event {
        case 0...9: Character(String(event))
        case 10: "*"
        case 11: "#"
        case 12...15: Character(UnicodeScalar(UInt8(ascii: "A") + event - 12))
        default: nil
        }
    }

    /// Answers every call at once (the callee of the setup-time test).
    final class AutoAnswer: EndpointDelegate {
        let answered = Mutex(0)
        func onIncomingCall(_ incoming: ParleyEndpoint.Incoming) { incoming.answer() }
        func onIncomingCallAnswered(_ incoming: ParleyEndpoint.Incoming) { answered.withLock { $0 += 1 } }
    }

    /// Call setup between two endpoints through the B2BUA (alice's endpoint application dials bob's
    /// endpoint, which answers at once), five calls: INVITE → 200 at alice, with the 407 answered
    /// on the way. Each call is hung up by alice and ends at bob.
    @Test(.timeLimit(.minutes(2))) func callSetupBetweenTwoEndpoints() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("endpoint-setup")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let account = server.defaultCredentials.account
            let port = try #require(server.sipPorts?.udp)
            let bobEndpoint = try server.store.createEndpoint(accountSid: account.sid, username: "bob", password: EndpointLoginInteropTests.password,
                                                              realm: config.sipRealm, alias: "Bob", applicationSid: nil)
            let app = try TwiMLTestApp(authToken: account.authToken)
            app.set("/voice", "<Response><Dial><Sip>sip:\(bobEndpoint.username)@127.0.0.1:\(port)</Sip></Dial></Response>")
            let application = try server.store.createApplication(ApplicationDraft(friendlyName: "to bob", voiceURL: app.baseURL + "/voice"),
                                                                 accountSid: account.sid)
            let aliceEndpoint = try server.store.createEndpoint(accountSid: account.sid, username: "alice", password: EndpointLoginInteropTests.password,
                                                                realm: config.sipRealm, alias: "Alice", applicationSid: application.sid)
            let callee = AutoAnswer()
            let bob = try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1:\(port)"), delegate: callee)
            let alice = try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1:\(port)"))
            try await bob.login(username: bobEndpoint.username, password: EndpointLoginInteropTests.password)
            try await alice.login(username: aliceEndpoint.username, password: EndpointLoginInteropTests.password)
            var setups: [Double] = []
            for _ in 0..<5 {
                let call = try alice.createOutgoingCall()
                let start = ContinuousClock.now
                try await call.call("bob")
                setups.append((ContinuousClock.now - start).milliseconds)
                call.hangup()
                #expect(await call.waitForEnd() == .hungUp(byUs: true))
            }
            let sorted = setups.sorted()
            print("endpoint → B2BUA → endpoint: INVITE→200 p50 \(sorted[2]) ms (\(sorted.map { Int($0.rounded()) }) ms)")
            await alice.logout()
            await bob.logout()
            // bob's callbacks were queued before its logout's, on the same queue.
            bob.delegateQueue.sync {}
            #expect(callee.answered.withLock { $0 } == 5)
            await app.shutdown()
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}
