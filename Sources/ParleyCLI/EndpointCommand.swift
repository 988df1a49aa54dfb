import AudioCore
import Foundation
import ParleyCore
import ParleyEndpoint

/// `parley endpoint call DEST` and `parley endpoint answer`: a SIP softphone on the endpoint SDK
/// (ParleyEndpoint) against any SIP server. It logs in (REGISTER with digest), prints the
/// registration, the call's states and received keys as they happen, and logs out (`Expires: 0`)
/// before it exits, also on SIGINT/SIGTERM. Exit 0 after a call that connected and ended normally,
/// 1 when login or the call failed (reason and code printed), 2 for usage errors.
enum EndpointCommand {
    static let common: Set<String> = ["registrar", "username", "password", "transport", "reg-timeout", "play", "record",
                                      "duration", "timeout", "local-address"]

    static func run(_ args: [String]) throws -> Int32 {
        switch args.first {
        case "call": return try call(Array(args.dropFirst()))
        case "answer": return try answer(Array(args.dropFirst()))
        default: throw UsageError("parley endpoint call DEST … | parley endpoint answer …")
        }
    }

    static func call(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, options: common.union(["header", "digits"]), flags: ["debug"])
        let destination = try parsed.positionals(1, "whom to call (DEST)")[0]
        var headers: [String: String] = [:]
        for pair in parsed.all("header") {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else { throw UsageError("--header must be X-Name=value, got \(pair)") }
            headers[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        do throws(EndpointError) { _ = try ExtraHeaders.validated(headers) } catch { throw UsageError("--header: \(error.reason)") }
        if let digits = parsed.value("digits"), digits.isEmpty || !digits.allSatisfy({ "0123456789*#ABCDabcd".contains($0) }) {
            throw UsageError("--digits takes 0-9, *, #, A-D, got \(digits)")
        }
        let setup = try Setup(parsed)
        let customHeaders = headers
        return CallCommand.blocking {
            await setup.session { endpoint, console, deadline in
                let outgoing: Outgoing
                do throws(EndpointError) {
                    let created = try endpoint.createOutgoingCall()
                    try startNow { () throws(EndpointError) in try created.call(destination, headers: customHeaders) }
                    outgoing = created
                } catch {
                    console.print("call failed: \(error.reason) (\(error.code))")
                    return 1
                }
                let start = ContinuousClock.now
                switch await console.wait(until: deadline, for: { $0.answered || $0.ended != nil }) {
                case .done where console.snapshot.answered: break
                case .done: return 1
                case .timedOut:
                    console.print("no answer within --timeout")
                    return await hangUp(outgoing, console: console, status: 1)
                case .interrupted(let signal):
                    console.print("\(Interruption.name(of: signal)): hanging up")
                    return await hangUp(outgoing, console: console, status: Interruption.status(for: signal))
                }
                console.print("setup \(Int((ContinuousClock.now - start).milliseconds)) ms (INVITE → 200)")
                let holdUntil = ContinuousClock.now + setup.duration
                if let digits = parsed.value("digits") {
                    _ = await console.wait(until: min(holdUntil, .now + .seconds(1))) { $0.ended != nil }
                    if console.snapshot.ended == nil {
                        do throws(EndpointError) {
                            try outgoing.sendDigits(digits)
                            console.print("sent digits \(digits)")
                        } catch {
                            console.print("digits not sent: \(error.reason)")
                        }
                    }
                }
                return await stay(outgoing, until: holdUntil, console: console)
            }
        }
    }

    static func answer(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, options: common, flags: ["debug", "reject"])
        _ = try parsed.positionals(0, "no positional arguments")
        let reject = parsed.has("reject")
        let setup = try Setup(parsed)
        return CallCommand.blocking {
            await setup.session { endpoint, console, deadline in
                console.print("waiting for a call")
                switch await console.wait(until: deadline, for: { $0.incoming != nil }) {
                case .done: break
                case .timedOut:
                    console.print("no call within --timeout")
                    return 1
                case .interrupted(let signal):
                    console.print("\(Interruption.name(of: signal)): no longer waiting")
                    return Interruption.status(for: signal)
                }
                guard let incoming = console.snapshot.incoming else { return 1 }
                if reject {
                    incoming.reject()
                    _ = await console.wait(until: .now + .seconds(5)) { $0.ended != nil }
                    return 0
                }
                startNow { incoming.answer() }
                switch await console.wait(until: .now + .seconds(5), for: { $0.answered || $0.ended != nil }) {
                case .done where console.snapshot.answered: break
                case .interrupted(let signal): return await hangUp(incoming, console: console, status: Interruption.status(for: signal))
                default: return 1
                }
                return await stay(incoming, until: ContinuousClock.now + setup.duration, console: console)
            }
        }
    }

    /// Runs `body` synchronously: the SDK's non-waiting forms (the command waits itself, so a
    /// signal can interrupt the wait), which async code would otherwise resolve to the async overloads.
    static func startNow<E: Error>(_ body: () throws(E) -> Void) throws(E) { try body() }

    /// Keeps an answered call until the far end hangs up, `until`, or a signal.
    static func stay(_ call: EndpointCall, until deadline: ContinuousClock.Instant, console: EndpointConsole) async -> Int32 {
        switch await console.wait(until: deadline, for: { $0.ended != nil }) {
        case .done:
            if case .hungUp = console.snapshot.ended { return 0 }
            return 1
        case .timedOut:
            return await hangUp(call, console: console, status: 0)
        case .interrupted(let signal):
            console.print("\(Interruption.name(of: signal)): hanging up")
            return await hangUp(call, console: console, status: Interruption.status(for: signal))
        }
    }

    static func hangUp(_ call: EndpointCall, console: EndpointConsole, status: Int32) async -> Int32 {
        call.hangup()
        _ = await console.wait(until: .now + .seconds(5), interruptible: false) { $0.ended != nil }
        return status
    }

    /// The options both subcommands share, checked.
    struct Setup: Sendable {
        let options: EndpointOptions
        let username: String
        let password: String
        let regTimeout: Int
        let duration: Duration
        let timeout: Duration

        init(_ parsed: Arguments) throws {
            guard let registrar = parsed.value("registrar") else { throw UsageError("--registrar sip:HOST:PORT is required") }
            guard let username = parsed.value("username"), !username.isEmpty else { throw UsageError("--username is required") }
            guard let password = parsed.value("password"), !password.isEmpty else { throw UsageError("--password is required") }
            let transportName = parsed.value("transport") ?? "udp"
            guard let transport = EndpointOptions.Transport(rawValue: transportName.lowercased()) else {
                throw UsageError("--transport is udp, tcp or tls, got \(transportName)")
            }
            let regTimeout = try parsed.integer("reg-timeout") ?? 600
            guard (120...2_592_000).contains(regTimeout) else { throw UsageError("--reg-timeout takes 120 to 2592000 seconds, got \(regTimeout)") }
            let device = try CallCommand.audioDevice(parsed)
            var options = EndpointOptions(registrar: registrar, transport: transport, debug: parsed.has("debug"), audioDevice: device)
            options.localAddress = parsed.value("local-address")
            do throws(EndpointError) { _ = try Endpoint(options: options) } catch { throw UsageError("\(error.reason)") }
            self.options = options
            self.username = username
            self.password = password
            self.regTimeout = Int(regTimeout)
            duration = try parsed.seconds("duration") ?? .seconds(10)
            timeout = try parsed.seconds("timeout") ?? .seconds(30)
        }

        /// Logs in, runs `body` with the login's deadline for what it waits for, logs out.
        func session(_ body: @escaping @Sendable (Endpoint, EndpointConsole, ContinuousClock.Instant) async -> Int32) async -> Int32 {
            let console = EndpointConsole()
            Interruption.shared.catchSignals()
            let endpoint: Endpoint
            do throws(EndpointError) { endpoint = try Endpoint(options: options, delegate: console, delegateQueue: console.queue) } catch {
                console.print("\(error.reason) (\(error.code))")
                return 1
            }
            let deadline = ContinuousClock.now + timeout
            console.print("registering \(username) at \(options.registrar) over \(options.transport.rawValue)")
            do throws(EndpointError) {
                try startNow { () throws(EndpointError) in try endpoint.login(username: username, password: password, regTimeout: regTimeout) }
            } catch {
                console.print("login refused: \(error.reason) (\(error.code))")
                return 1
            }
            switch await console.wait(until: deadline, for: { $0.login != nil }) {
            case .done: break
            case .timedOut:
                console.print("no answer from the registrar within --timeout")
                return await logout(endpoint, console: console, status: 1)
            case .interrupted(let signal):
                return await logout(endpoint, console: console, status: Interruption.status(for: signal))
            }
            guard case .success = console.snapshot.login else { return 1 }
            let status = await body(endpoint, console, deadline)
            return await logout(endpoint, console: console, status: status)
        }

        private func logout(_ endpoint: Endpoint, console: EndpointConsole, status: Int32) async -> Int32 {
            startNow { endpoint.logout() }
            _ = await console.wait(until: .now + .seconds(5), interruptible: false) { $0.loggedOut }
            console.queue.sync {}
            return status
        }
    }
}
