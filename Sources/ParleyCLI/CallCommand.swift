import AccessToken
import AudioCore
import AudioDevices
import Foundation
import ParleyVoice
import Synchronization

/// `parley call TO` and `parley listen`: a command-line softphone on the voice SDK. State changes,
/// quality warnings and the call's figures print as they happen; audio comes from a WAV file (or
/// silence) and what the far end says can be recorded to a WAV file.
enum CallCommand {
    static let common: Set<String> = Credentials.options.union(["server", "token", "identity", "play", "record",
                                                                 "duration", "app"])

    static func call(_ args: [String], environment: [String: String]) throws -> Int32 {
        let parsed = try Arguments(args, options: common.union(["param", "digits"]))
        let to = try parsed.positionals(1, "whom to call (TO)")[0]
        var params = try keyValues(parsed.all("param"))
        params["To"] = to
        let token = try accessToken(parsed, environment: environment)
        try configure(parsed, environment: environment)
        let device = try audioDevice(parsed)
        let duration = try parsed.integer("duration") ?? 10
        let console = CallConsole(name: "call")
        let options = ConnectOptions(accessToken: token) {
            $0.params = params
            $0.audioDevice = device
            $0.delegateQueue = console.queue
        }
        return blocking {
            let started = ContinuousClock.now
            let call = Voice.connect(options: options, delegate: console)
            console.print("calling \(to)")
            guard await console.waitForConnect() else { return 1 }
            console.print("setup \(Int((ContinuousClock.now - started).milliseconds)) ms (connect → callDidConnect)")
            if let digits = parsed.value("digits") {
                try? await Task.sleep(for: .seconds(1))
                call.sendDigits(digits)
                console.print("sent digits \(digits)")
            }
            await console.hold(call, seconds: Double(duration))
            await console.printStats(call)
            call.disconnect()
            return await console.waitForEnd()
        }
    }

    static func listen(_ args: [String], environment: [String: String]) throws -> Int32 {
        let parsed = try Arguments(args, options: common.union(["count"]), flags: ["answer", "reject"])
        _ = try parsed.positionals(0, "no positional arguments")
        guard parsed.value("identity") != nil || parsed.value("token") != nil else {
            throw UsageError("listen needs --identity NAME or --token JWT")
        }
        let token = try accessToken(parsed, environment: environment)
        try configure(parsed, environment: environment)
        let device = try audioDevice(parsed)
        let reject = parsed.has("reject")
        let duration = try parsed.integer("duration")
        let console = CallConsole(name: "listen")
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
            let invite = await inbox.next()
            console.print("incoming call \(invite.callSid) from \(invite.from ?? "?")"
                          + (invite.customParameters.isEmpty ? "" : " params \(invite.customParameters)"))
            if reject {
                invite.reject()
                console.print("rejected")
                try? await Task.sleep(for: .milliseconds(300))
                await listener.stop()
                return 0
            }
            let options = AcceptOptions(callInvite: invite) {
                $0.audioDevice = device
                $0.delegateQueue = console.queue
            }
            let call = invite.accept(options: options, delegate: console)
            guard await console.waitForConnect() else { return 1 }
            if let duration {
                await console.hold(call, seconds: Double(duration))
                await console.printStats(call)
                call.disconnect()
            } else {
                await console.holdUntilEnd(call)
            }
            let status = await console.waitForEnd()
            await listener.stop()
            return status
        }
    }

    /// `--token`, or one minted for `--identity` from the store or `PARLEY_*` credentials.
    static func accessToken(_ parsed: Arguments, environment: [String: String]) throws -> String {
        if let token = parsed.value("token") { return token }
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
