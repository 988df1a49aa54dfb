import AccessToken
import AudioCore
import AudioDevices
import Foundation
import ParleyCore
import ParleyVoice
import Synchronization

/// `parley call TO` and `parley listen`: a command-line softphone on the voice SDK. State changes,
/// quality warnings and the call's figures print as they happen; audio comes from a WAV file (or
/// silence) and what the far end says can be recorded to a WAV file.
enum CallCommand {
    static let common: Set<String> = Credentials.options.union(["server", "token", "identity", "play", "record",
                                                                 "duration", "connect-timeout", "app"])
        .union(MediaFlags.options)

    static func call(_ args: [String], environment: [String: String]) throws -> Int32 {
        let parsed = try Arguments(args, options: common.union(["param", "digits"]), flags: MediaFlags.flags)
        let to = try parsed.positionals(1, "whom to call (TO)")[0]
        var params = try keyValues(parsed.all("param"))
        params["To"] = to
        let token = try accessToken(parsed, environment: environment)
        try configure(parsed, environment: environment)
        let device = try audioDevice(parsed)
        let media = try MediaFlags(parsed)
        let clock = try RunClock(parsed, defaultDuration: .seconds(10))
        let console = CallConsole(name: "call")
        let options = ConnectOptions(accessToken: token) {
            $0.params = params
            $0.audioDevice = device
            $0.delegateQueue = console.queue
            media.apply(to: &$0.media)
        }
        Interruption.shared.catchSignals()
        return blocking {
            let call = Voice.connect(options: options, delegate: console)
            console.print("calling \(to)")
            let connected = await console.waitForConnect(until: clock.connectDeadline)
            guard connected == .connected else {
                if connected == .failed { return 1 }
                return await console.cancel(call, connected, waited: clock.connectLimitDescription)
            }
            console.print("setup \(Int(clock.elapsed.milliseconds)) ms (connect → callDidConnect)")
            if let digits = parsed.value("digits") {
                let pause = await console.hold(until: clock.capped(.now + .seconds(1)))
                guard pause == .elapsed else { return await console.finish(call, pause) }
                call.sendDigits(digits)
                console.print("sent digits \(digits)")
            }
            return await console.finish(call, await console.hold(until: clock.deadline))
        }
    }

    static func listen(_ args: [String], environment: [String: String]) throws -> Int32 {
        let parsed = try Arguments(args, options: common, flags: MediaFlags.flags.union(["answer", "reject"]))
        _ = try parsed.positionals(0, "no positional arguments")
        guard parsed.value("identity") != nil || parsed.value("token") != nil else {
            throw UsageError("listen needs --identity NAME or --token JWT")
        }
        guard !(parsed.has("answer") && parsed.has("reject")) else { throw UsageError("--answer or --reject, not both") }
        let token = try accessToken(parsed, environment: environment)
        try configure(parsed, environment: environment)
        let device = try audioDevice(parsed)
        let media = try MediaFlags(parsed)
        let reject = parsed.has("reject")
        let clock = try RunClock(parsed, defaultDuration: nil)
        let console = CallConsole(name: "listen")
        Interruption.shared.catchSignals()
        return blocking {
            let inbox = ListenInbox(console: console)
            let listener: Listener
            do {
                listener = try await Voice.listen(accessToken: token, delegate: inbox, delegateQueue: console.queue)
            } catch {
                console.print("listen failed: \(error)")
                return 1
            }
            console.print("listening as \(listener.identity)")
            let status = await answerOne(from: inbox, console: console, clock: clock, reject: reject) { invite in
                AcceptOptions(callInvite: invite) {
                    $0.audioDevice = device
                    $0.delegateQueue = console.queue
                    media.apply(to: &$0.media)
                }
            }
            await listener.stop()
            return status
        }
    }

    /// `parley listen`'s one call: wait for an invite, reject it or answer it, stay until it ends.
    private static func answerOne(from inbox: ListenInbox, console: CallConsole, clock: RunClock, reject: Bool,
                                  options: (CallInvite) -> AcceptOptions) async -> Int32 {
        let invite: CallInvite
        switch await inbox.next(until: clock.connectDeadline) {
        case .success(let received): invite = received
        case .failure(.interrupted(let signal)):
            console.print("\(Interruption.name(of: signal)): no longer listening")
            return Interruption.status(for: signal)
        case .failure:
            console.print("no call within \(clock.connectLimitDescription)")
            return 1
        }
        console.print("incoming call \(invite.callSid) from \(invite.from ?? "?") to \(invite.to)")
        for (name, value) in invite.customParameters.sorted(by: { $0.key < $1.key }) {
            console.print("param \(name)=\(value)")
        }
        if reject {
            invite.reject()
            console.print("rejected")
            try? await Task.sleep(for: .milliseconds(300))  // the reject leaves before the connection closes
            return 0
        }
        let call = invite.accept(options: options(invite), delegate: console)
        let connected = await console.waitForConnect(until: clock.deadline)
        guard connected == .connected else {
            if connected == .failed { return 1 }
            return await console.cancel(call, connected, waited: clock.limitDescription)
        }
        return await console.finish(call, await console.hold(until: clock.deadline))
    }

    /// `--token`, or one minted for `--identity` from the store or `PARLEY_*` credentials.
    static func accessToken(_ parsed: Arguments, environment: [String: String]) throws -> String {
        if let token = parsed.value("token") {
            guard parsed.value("app") == nil else {
                throw UsageError("--app goes with --identity (a --token carries its own outgoing application)")
            }
            return token
        }
        guard let identity = parsed.value("identity") else { throw UsageError("--token JWT or --identity NAME is required") }
        let credentials = try Credentials.resolve(parsed, environment: environment)
        return try AccessTokenBuilder.mint(
            accountSid: credentials.accountSid, apiKeySid: credentials.apiKeySid, apiSecret: credentials.apiSecret,
            identity: identity, ttl: 3600,
            grants: [.voice(VoiceGrant(incomingAllow: true, outgoingApplicationSid: parsed.value("app")))])
    }

    static func configure(_ parsed: Arguments, environment: [String: String]) throws {
        guard let server = parsed.value("server") ?? environment["PARLEY_SERVER_URL"] else {
            throw UsageError("--server URL is required (or PARLEY_SERVER_URL)")
        }
        Voice.servers = ["cli": server]
        Voice.edge = "cli"
        Voice.isInsightsEnabled = environment["PARLEY_INSIGHTS"] != "0"
    }

    /// `--play in.wav` as the microphone (looped), `--record out.wav` as the speaker; silence otherwise.
    static func audioDevice(_ parsed: Arguments) throws -> any AudioDevice {
        let record = parsed.value("record")
        if let play = parsed.value("play") {
            return try FileAudioDevice(inputPath: play, outputPath: record, looping: true)
        }
        let silence = WAVFile(sampleRate: 48_000, channels: 1, samples: [Int16](repeating: 0, count: 48_000))
        return try FileAudioDevice(input: silence, outputPath: record, looping: true)
    }

    static func keyValues(_ pairs: [String]) throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in pairs {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw UsageError("--param must be key=value, got \(pair)")
            }
            result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        return result
    }

    /// Runs async work from the synchronous CLI entry point.
    static func blocking(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let result = Mutex<Int32>(1)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let status = await body()
            result.withLock { $0 = status }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}
