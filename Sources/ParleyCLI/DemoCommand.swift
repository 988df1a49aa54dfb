import AudioDevices
import CallHarness
import Foundation
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyVoice
import Synchronization

/// `parley demo` (what `make demo` runs): a server on loopback with its embedded store, two SDK
/// clients `alice` and `bob` in this process, and a call from alice to bob carrying speech, DTMF,
/// mute and hold; then the call's figures, bob's recording as a WAV and its PESQ-WB score, and the
/// setup time of a series of short calls. SIGINT or SIGTERM hangs the call up, stops bob's
/// listener and the server, then exits (130 or 143).
enum DemoCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, options: ["out", "http", "setup-calls"])
        _ = try parsed.positionals(0, "no positional arguments")
        let out = parsed.value("out") ?? ".demo"
        let setupCalls = Int(try parsed.integer("setup-calls") ?? 50)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        var configuration = ServerConfiguration()
        configuration.port = 0
        if let http = parsed.value("http"), let colon = http.lastIndex(of: ":"), let port = Int(http[http.index(after: colon)...]) {
            configuration.host = String(http[..<colon])
            configuration.port = port
        }
        configuration.databasePath = out + "/parley.db"
        configuration.recordingsDirectory = out + "/recordings"
        let server = try PlatformServer(configuration: configuration, store: try SQLiteAccountStore(path: configuration.databasePath))
        try server.start()
        let base = "http://\(configuration.host):\(server.port)"
        let credentials = server.defaultCredentials
        let aliceToken = try VoiceTokens.mint(server, identity: "alice"), bobToken = try VoiceTokens.mint(server, identity: "bob")
        let speechPath = out + "/alice-speech.wav", heardPath = out + "/bob-heard.wav"
        let microphonePath = out + "/alice-microphone.wav"
        let (material, seconds) = try DemoSpeech.make(at: speechPath, microphonePath: microphonePath,
                                                      leadIn: DemoCall.leadIn, padding: 8)
        Voice.servers = ["demo": base]
        Voice.edge = "demo"
        section("parley-server on \(base) (store \(configuration.databasePath), account \(credentials.account.sid))")
        say(String(format: "alice will say: %@, %.1f s → %@", material, seconds, speechPath))
        Interruption.shared.catchSignals()
        return CallCommand.blocking {
            let demo = DemoCall(aliceToken: aliceToken, bobToken: bobToken, speechPath: speechPath,
                                microphonePath: microphonePath, speechSeconds: seconds, heardPath: heardPath)
            let result = await demo.run()
            if result == 0 {
                section("PESQ-WB of what bob heard against alice's speech (ITU-T P.862.2; 4.5 is the ceiling)")
                say(SpeechScore.describe(reference: speechPath, degraded: heardPath))
                if setupCalls > 0 { await demo.measureSetup(calls: setupCalls) }
            }
            await server.shutdown()
            return Interruption.shared.caughtSignal.map(Interruption.status(for:)) ?? result
        }
    }

    static func section(_ title: String) {
        say("\n== \(title)")
    }
}

/// One line on standard output, unbuffered (the call consoles write from other threads).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The scripted call of `parley demo`.
struct DemoCall: Sendable {
    /// Seconds of silence before alice speaks (`DemoSpeech.make`).
    static let leadIn = 1.0
    let aliceToken: String
    let bobToken: String
    let speechPath: String
    let microphonePath: String
    let speechSeconds: Double
    let heardPath: String

    func run() async -> Int32 {
        let alice = CallConsole(name: "alice"), bob = CallConsole(name: "bob")
        let bobCall = Mutex<Call?>(nil)
        let heard = heardPath
        let listener: Listener
        let accepted = InviteHandler { invite in
            bob.print("incoming call \(invite.callSid) from \(invite.from ?? "?")")
            let options = AcceptOptions(callInvite: invite) {
                // bob's speaker is a 16 kHz WAV (what PESQ-WB compares); his microphone is silent.
                $0.audioDevice = try? SpeechDevices.recorder(to: heard)
                $0.delegateQueue = bob.queue
            }
            bobCall.withLock { $0 = invite.accept(options: options, delegate: bob) }
        }
        // The SDK holds delegates weakly: the inbox must outlive the listener.
        defer { withExtendedLifetime(accepted) {} }
        do {
            listener = try await Voice.listen(accessToken: bobToken, delegate: accepted, delegateQueue: bob.queue)
        } catch {
            bob.print("listen failed: \(error)")
            return 1
        }
        bob.print("listening as \(listener.identity)")
        let microphone: FileAudioDevice
        do { microphone = try FileAudioDevice(inputPath: microphonePath, outputPath: nil) } catch {
            alice.print("cannot read \(microphonePath): \(error)")
            await listener.stop()
            return 1
        }
        let started = ContinuousClock.now
        let call = Voice.connect(options: ConnectOptions(accessToken: aliceToken) {
            $0.params = ["To": "bob"]
            $0.audioDevice = microphone
            $0.delegateQueue = alice.queue
        }, delegate: alice)
        alice.print("calling bob")
        let connected = await alice.waitForConnect(until: .now + .seconds(20))
        guard connected == .connected else {
            let status = connected == .failed ? 1 : await alice.cancel(call, connected, waited: "20 s")
            await listener.stop()
            return status
        }
        let setup = ContinuousClock.now - started
        alice.print(String(format: "setup %.1f ms (connect → callDidConnect)", setup.milliseconds))
        _ = await bob.waitForConnect(until: .now + .seconds(5))

        let bobsCall = bobCall.withLock { $0 }
        @Sendable func bobHears() async -> String {
            let level = await bobsCall?.stats().remoteAudioTrackStats.first?.audioLevel ?? 0
            return String(format: "bob hears level %.3f", level)
        }
        let afterSpeech = Mutex<StatsReport?>(nil)
        let bobAfterSpeech = Mutex<StatsReport?>(nil)
        // The script: how long to wait, then what alice does.
        let script: [(Duration, @Sendable () async -> Void)] = [
            (.milliseconds(Int((Self.leadIn + speechSeconds) * 1000) + 600), {
                let report = await call.stats()
                afterSpeech.withLock { $0 = report }
                let bobs = await bobsCall?.stats()
                bobAfterSpeech.withLock { $0 = bobs }
                alice.print("speech sent, now a 330 Hz tone; \(await bobHears()); DTMF 1234#")
                call.sendDigits("1234#")
            }),
            (.milliseconds(1500), { call.isMuted = true }),
            (.milliseconds(700), { alice.print("muted: \(await bobHears())") }),
            (.milliseconds(300), { call.isMuted = false; call.isOnHold = true }),
            (.milliseconds(900), { alice.print("on hold (the server plays hold music to bob): \(await bobHears())") }),
            (.milliseconds(300), { call.isOnHold = false }),
            (.milliseconds(700), { alice.print("off hold: \(await bobHears()); hanging up") }),
        ]
        for (wait, step) in script {
            guard await alice.hold(until: .now + wait) == .elapsed else { break }
            await step()
        }
        let interrupted = Interruption.shared.caughtSignal
        if let interrupted { alice.print("\(Interruption.name(of: interrupted)): hanging up") }
        call.disconnect()
        let status = await alice.waitForEnd()
        _ = await bob.waitForEnd()
        await listener.stop()
        if let interrupted { return Interruption.status(for: interrupted) }

        DemoCommand.section("The call's figures (alice's side, after the speech)")
        if let report = afterSpeech.withLock({ $0 }), let remote = report.remoteAudioTrackStats.first,
           let local = report.localAudioTrackStats.first {
            say(String(format: "setup %.1f ms; codec %@; MOS %@; jitter %.2f ms; RTT %@",
                         setup.milliseconds, local.codec, remote.mos.map { String(format: "%.2f", $0) } ?? "n/a",
                         remote.jitterMs, local.roundTripTimeMs.map { String(format: "%.1f ms", $0) } ?? "n/a"))
            say("packets sent \(local.packetsSent), received \(remote.packetsReceived), lost \(remote.packetsLost) "
                  + "(far end reports \(local.packetsLost.map(String.init) ?? "n/a") of ours lost)")
        }
        if let heard = bobAfterSpeech.withLock({ $0 })?.remoteAudioTrackStats.first {
            say(String(format: "bob: %d packets received, %d lost; recovered %d frames by RED%@ and %d by FEC, "
                         + "concealed %.2f s; jitter buffer p95 %.0f ms", heard.packetsReceived, heard.packetsLost,
                       heard.framesRecoveredByRED, heard.isREDNegotiated ? "" : " (not negotiated)",
                       heard.framesRecoveredByFEC, Double(heard.samplesConcealed) / 48_000, heard.jitterBufferDelayP95Ms))
        }
        say("bob received the digits \(bob.digits)")
        say("bob's recording: \(heardPath) (16 kHz mono); alice's speech: \(speechPath)")
        return status
    }

    /// Short calls alice → bob (bob answers at once, silent devices) for the setup-time figure.
    func measureSetup(calls: Int) async {
        let quiet = CallConsole(name: "setup")
        let inbox = InviteHandler { invite in
            let options = AcceptOptions(callInvite: invite) {
                $0.audioDevice = NullAudioDevice()
                $0.delegateQueue = quiet.queue
            }
            Task { _ = try? await invite.accept(options: options) }
        }
        defer { withExtendedLifetime(inbox) {} }  // the listener holds it weakly
        guard let listener = try? await Voice.listen(accessToken: bobToken, delegate: inbox, delegateQueue: quiet.queue) else {
            return
        }
        var setups: [Double] = []
        for _ in 0..<calls where !Interruption.shared.isRequested {
            let started = ContinuousClock.now
            let options = ConnectOptions(accessToken: aliceToken) {
                $0.params = ["To": "bob"]
                $0.audioDevice = NullAudioDevice()
                $0.delegateQueue = quiet.queue
            }
            guard let call = try? await Voice.connect(options: options) else { continue }
            setups.append((ContinuousClock.now - started).milliseconds)
            call.disconnect()
            try? await Task.sleep(for: .milliseconds(50))
        }
        await listener.stop()
        guard !setups.isEmpty else { return }
        let sorted = setups.sorted()
        DemoCommand.section("Call setup, connect → connected, \(sorted.count) calls")
        say(String(format: "p50 %.1f ms, p95 %.1f ms, max %.1f ms", sorted[sorted.count / 2],
                     sorted[min(sorted.count - 1, sorted.count * 95 / 100)], sorted.last!))
    }
}
