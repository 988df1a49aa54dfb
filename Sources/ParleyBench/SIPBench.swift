import Foundation
import Glibc
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport

/// `parley-bench sip`: Parley's registrar and B2BUA beside Kamailio 5.6, in one run, under the
/// same sipp scenarios (sipp pinned to CPU 1, each server to CPU 0):
/// - REGISTER with MD5 digest (REGISTER, 401, REGISTER, 200) for `users` users;
/// - REGISTER answered by its 401 only (the cost of an unauthenticated flood);
/// - calls: INVITE, 407, INVITE with digest → 200 from a sipp UAS, ACK, BYE. Kamailio proxies
///   (record-routed, stateful); Parley is a B2BUA: it fetches the caller's application's TwiML
///   (`<Dial><Sip>`, served in this process), opens a media leg per side and bridges them.
/// Each server's CPU time per operation gives its capacity per core; sipp's offered rate is the
/// same for both, so the ratio does not depend on sipp's own ceiling.
enum SIPBench {
    struct Options {
        var users = 1000
        var registrations = 20_000
        var rate = 4000
        var limit = 50
        var calls = 2000
        var callRate = 100
        var callLimit = 40
        var holdMilliseconds = 200
    }

    /// One server's figures.
    struct Side {
        var register = SIPBenchPeers.SippResult()
        var registerCPU = 0.0
        var challenge = SIPBenchPeers.SippResult()
        var challengeCPU = 0.0
        var call = SIPBenchPeers.SippResult()
        var callCPU = 0.0
    }

    static let calleePort = 25300

    static func run(_ options: Options) async throws {
        try SIPBenchPeers.requireTools()
        BenchSystem.lineBufferStandardOutput()
        let directory = NSTemporaryDirectory() + "parley-bench-sip-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        print("parley-bench sip: \(options.registrations) REGISTERs (\(options.users) users) at \(options.rate)/s, "
              + "\(options.calls) calls at \(options.callRate)/s; sipp on CPU 1, each server on CPU 0; load \(BenchSystem.loadAverage)")

        let callee = try SIPBenchPeers.startCallee(port: calleePort, cpu: 1, directory: directory)
        defer { SIPBenchPeers.stop(callee) }
        try await SIPBenchPeers.waitForUDPPort(calleePort)

        // Parley names its endpoints (Plivo's numeric suffix); Kamailio gets the same names.
        var names: [String] = []
        let parley = try await parleySide(options, directory: directory, names: &names)
        let kamailio = try await kamailioSide(options, directory: directory, names: names)
        report(parley: parley, kamailio: kamailio, options: options)
    }

    private static func parleySide(_ options: Options, directory: String, names: inout [String]) async throws -> Side {
        var config = ServerConfiguration()
        (config.port, config.mediaPort, config.databasePath) = (0, 0, "\(directory)/parley.db")
        config.recordingsDirectory = "\(directory)/recordings"
        (config.sipHost, config.sipPort) = ("127.0.0.1", 0)
        config.sipRequestRate = 0   // the load comes from one address, as from a proxy in front
        if ProcessInfo.processInfo.environment["PARLEY_BENCH_SIP_DEBUG"] != nil { Log.setLevel(.debug) }
        let server = try PlatformServer(configuration: config)
        try server.start()
        let account = server.defaultCredentials.account
        let app = try TwiMLTestApp(authToken: account.authToken)
        app.set("/voice", "<Response><Dial><Sip>sip:callee@127.0.0.1:\(calleePort)</Sip></Dial></Response>")
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "bench", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: account.sid)
        names = try (0..<options.users).map { index in
            try server.store.createEndpoint(accountSid: account.sid, username: "bench\(index)", password: SIPBenchScenarios.password,
                                            realm: config.sipRealm, alias: "", applicationSid: application.sid).username
        }
        guard let port = server.sipPorts?.udp else { throw SIPBenchPeers.Failure(description: "the server has no SIP port") }
        BenchSystem.pinProcess(cpu: 0)
        let side = try await measure(options, target: "127.0.0.1:\(port)", domain: config.sipRealm, names: names, directory: directory,
                                     name: "parley") {
            BenchSystem.cpuSeconds(pid: getpid())
        }
        print("  parley: stopping")
        await server.shutdown()
        return side
    }

    private static func kamailioSide(_ options: Options, directory: String, names: [String]) async throws -> Side {
        let port = 25060
        let kamailio = try SIPBenchPeers.startKamailio(
            configuration: KamailioConfiguration.registrarProxy(port: port, password: SIPBenchScenarios.password, calleePort: calleePort).text, directory: directory, cpu: 0)
        defer { SIPBenchPeers.stop(kamailio) }
        try await SIPBenchPeers.waitForUDPPort(port)
        print("  kamailio: started (pid \(kamailio.processIdentifier))")
        let pid = kamailio.processIdentifier
        return try await measure(options, target: "127.0.0.1:\(port)", domain: "parley", names: names, directory: directory,
                                 name: "kamailio") {
            SIPBenchPeers.treeCPUSeconds(pid)
        }
    }

    /// The three scenarios against one server, with its CPU time read around each.
    private static func measure(_ options: Options, target: String, domain: String, names: [String], directory: String, name: String,
                                cpu: () -> Double) async throws -> Side {
        let users = "\(directory)/users.csv"
        try SIPBenchScenarios.users(names, domain: domain).write(toFile: users, atomically: true, encoding: .utf8)
        let files = [("register", SIPBenchScenarios.registerWithDigest), ("challenge", SIPBenchScenarios.registerChallenged),
                     ("call", SIPBenchScenarios.call(holdMilliseconds: options.holdMilliseconds))]
        for (file, text) in files { try text.write(toFile: "\(directory)/\(file).xml", atomically: true, encoding: .utf8) }
        // Each run gets its own sipp ports, so no run waits for the last one's sockets.
        var port = name == "parley" ? 25100 : 25160
        func run(_ file: String, label: String, calls: Int, rate: Int, limit: Int) async throws -> (SIPBenchPeers.SippResult, Double) {
            let before = cpu()
            let result = try await SIPBenchPeers.runSipp(target: target, scenario: "\(directory)/\(file).xml", calls: calls, rate: rate,
                                                         limit: limit, cpu: 1, localPort: port, directory: directory, extra: ["-inf", users])
            port += 10
            print("  \(name): \(label) \(result.successful) ok, \(result.failed) failed in \(seconds(result.seconds))")
            return (result, cpu() - before)
        }
        var side = Side()
        (side.register, side.registerCPU) = try await run("register", label: "REGISTER with digest", calls: options.registrations,
                                                          rate: options.rate, limit: options.limit)
        (side.challenge, side.challengeCPU) = try await run("challenge", label: "REGISTER → 401", calls: options.registrations,
                                                            rate: options.rate, limit: options.limit)
        (side.call, side.callCPU) = try await run("call", label: "calls", calls: options.calls, rate: options.callRate, limit: options.callLimit)
        return side
    }

    private static func report(parley: Side, kamailio: Side, options: Options) {
        func perOperation(_ cpu: Double, _ result: SIPBenchPeers.SippResult) -> Double {
            result.successful > 0 ? cpu / Double(result.successful) : .nan
        }
        func row(_ label: String, _ p: String, _ k: String, _ ratio: String = "") {
            print(label.padding(toLength: 44, withPad: " ", startingAt: 0) + p.padding(toLength: 16, withPad: " ", startingAt: 0)
                  + k.padding(toLength: 16, withPad: " ", startingAt: 0) + ratio)
        }
        func block(_ title: String, _ p: SIPBenchPeers.SippResult, _ pCPU: Double, _ k: SIPBenchPeers.SippResult, _ kCPU: Double) {
            let (pp, kp) = (perOperation(pCPU, p), perOperation(kCPU, k))
            row(title, "", "")
            row("  ok / failed / retransmitted", "\(p.successful)/\(p.failed)/\(p.retransmissions)", "\(k.successful)/\(k.failed)/\(k.retransmissions)")
            row("  achieved rate (/s)", String(format: "%.0f", Double(p.successful) / p.seconds),
                String(format: "%.0f", Double(k.successful) / k.seconds))
            row("  server CPU per operation (µs)", String(format: "%.1f", pp * 1e6), String(format: "%.1f", kp * 1e6))
            row("  capacity per core (/s)", String(format: "%.0f", 1 / pp), String(format: "%.0f", 1 / kp),
                String(format: "%.2f×", kp / pp))
        }
        print("")
        row("", "Parley", "Kamailio 5.6", "Parley ÷ Kamailio")
        block("REGISTER with MD5 digest (2 round trips)", parley.register, parley.registerCPU, kamailio.register, kamailio.registerCPU)
        block("REGISTER → 401 only", parley.challenge, parley.challengeCPU, kamailio.challenge, kamailio.challengeCPU)
        block("call: INVITE+digest → 200, ACK, BYE", parley.call, parley.callCPU, kamailio.call, kamailio.callCPU)
        let (p, k) = (percentiles(parley.call.setupMilliseconds), percentiles(kamailio.call.setupMilliseconds))
        row("  setup INVITE→200, p50 / p99 (ms)", String(format: "%.0f / %.0f", p.p50, p.p99),
            String(format: "%.0f / %.0f", k.p50, k.p99))
        print("(Parley's call CPU includes its TwiML webhook fetch, served in this process; Kamailio only relays.)")
    }

    private static func percentiles(_ values: [Double]) -> (p50: Double, p99: Double) {
        guard !values.isEmpty else { return (.nan, .nan) }
        let sorted = values.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))])
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}
