import AccessToken
import Foundation
import Glibc
import ParleyCore
import ParleyStore
import ParleyTestSupport
import Synchronization

/// `parley-bench signaling-idle`: N idle signaling WebSockets, each past `hello` → `welcome`,
/// held open against a separate `parley-server` process, so that the server's memory per
/// connection is its own `VmRSS` delta / N, untouched by the clients.
///
/// The server is the built `parley-server` (beside this binary), started on a free loopback port
/// with a fresh SQLite store whose default key signs the tokens (one identity per connection).
/// The open-file limit is raised first (we run as root), and the child inherits it. Clients
/// connect from 127.0.0.2, 127.0.0.3, … (25,000 each: one source address has 28,232 ephemeral
/// ports). A protocol `ping` goes out on every connection every 20 s, as the welcome's heartbeat
/// asks, so the server's idle timeout (3 heartbeats) never closes them, however long the hold.
enum SignalingIdleBench {
    static let perSourceAddress = 25_000
    static let openers = 8
    static let warmup = 100

    static func run(connections: Int, hold: Double, inProcess: Bool) async throws {
        BenchSystem.lineBufferStandardOutput()
        let limit = BenchSystem.raiseFileLimit(to: max(connections, warmup + 1) + 4096)
        // Server and bench each need a descriptor per connection. The server accepts up to its
        // ceiling, 5 % (at least 128) below the limit, and keeps the rest for files and UDP; stay
        // 100 below that.
        let total = min(max(connections, warmup + 1), limit - max(128, limit / 20) - 100)
        if total < connections {
            print("note: open-file limit \(limit) (raising it needs CAP_SYS_RESOURCE): \(connections) connections capped at \(total)")
        }
        let directory = NSTemporaryDirectory() + "parley-bench-idle-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await IdleServer.start(directory: directory, inProcess: inProcess)
        defer { server.stop() }
        let pid = server.pid, port = server.port, credentials = server.credentials
        let who = inProcess ? "process (server and clients)" : "server"
        print("# Idle signaling WebSockets: \(total) connections to parley-server (\(inProcess ? "in this process" : "pid \(pid), a separate process"), "
              + "1 HTTP loop thread), each past hello → welcome; open-file limit \(limit); ping every 20 s")
        print("machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs, load average \(BenchSystem.loadAverage), "
              + "parley-fuzz \(BenchSystem.fuzzerRunning ? "RUNNING (one core)" : "not running")")

        let now = Int64(Date().timeIntervalSince1970)
        let tokens = try (0..<total).map { i in
            try AccessTokenBuilder.mint(accountSid: credentials.account.sid, apiKeySid: credentials.apiKey.sid,
                                        apiSecret: credentials.apiKey.secret, identity: "idle_\(i)", ttl: 3600,
                                        grants: [.voice(VoiceGrant(incomingAllow: true))], now: now)
        }
        let registry = ConnectionRegistry()
        let pinger = Pinger(registry: registry)
        pinger.start()
        defer { pinger.stop() }

        let rssIdle = BenchSystem.residentBytes(pid: pid)
        _ = try await open(range: 0..<warmup, port: port, tokens: tokens, registry: registry)
        try await Task.sleep(for: .milliseconds(500))
        let rssWarm = BenchSystem.residentBytes(pid: pid)
        let slabBefore = BenchSystem.meminfo("Slab"), tcpBefore = BenchSystem.tcpSocketMemoryPages()
        let cpuBefore = BenchSystem.cpuSeconds(pid: pid)
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await open(range: warmup..<total, port: port, tokens: tokens, registry: registry)
        let openSeconds = (clock.now - start).seconds
        let openCPU = BenchSystem.cpuSeconds(pid: pid) - cpuBefore
        try await Task.sleep(for: .seconds(1))
        let rssOpen = BenchSystem.residentBytes(pid: pid)
        let slabAfter = BenchSystem.meminfo("Slab"), tcpAfter = BenchSystem.tcpSocketMemoryPages()
        let opened = registry.count
        let health = await timedHealth(port: port)
        if let ended = server.exitReport(directory: directory) { print(ended) }

        let sorted = latencies.sorted()
        func ms(_ q: Double) -> String { String(format: "%.2f", BenchSystem.percentile(sorted, q) * 1000) }
        print("opened \(opened) of \(total) (\(registry.failures) failed\(registry.firstError.map { ": \($0)" } ?? "")); "
              + "\(total - warmup) in \(String(format: "%.1f", openSeconds)) s → \(format(Double(total - warmup) / openSeconds)) "
              + "connections/s with \(openers) blocking openers; connect → welcome p50 \(ms(0.5)) ms, p99 \(ms(0.99)) ms, "
              + "max \(ms(1)) ms; \(who) CPU \(String(format: "%.0f", openCPU / Double(total - warmup) * 1e6)) µs per connection")
        let perConnection = Double(rssOpen - rssWarm) / Double(max(opened - warmup, 1))
        print("server VmRSS \(BenchSystem.megabytes(rssIdle)) idle → \(BenchSystem.megabytes(rssWarm)) after \(warmup) → "
              + "\(BenchSystem.megabytes(rssOpen)) with \(opened): \(BenchSystem.kilobytes(perConnection)) per connection "
              + "(VmHWM \(BenchSystem.megabytes((BenchSystem.statusField(pid: pid, "VmHWM:") ?? 0) * 1024)))")
        print("kernel (both ends of each loopback connection, outside RSS): slab +\(BenchSystem.kilobytes(Double(slabAfter - slabBefore) * 1024 / Double(max(opened - warmup, 1)))) "
              + "per connection, TCP buffers +\(tcpAfter - tcpBefore) pages")
        print("/healthz while holding them: \(health.status) in \(String(format: "%.2f", health.seconds * 1000)) ms; "
              + "/metrics: \(await metricLine(port: port, "parley_signaling_connections "))")

        let holdStart = clock.now
        let cpuHoldStart = BenchSystem.cpuSeconds(pid: pid)
        while (clock.now - holdStart).seconds < hold {
            try await Task.sleep(for: .seconds(min(10, max(0.1, hold - (clock.now - holdStart).seconds))))
            print(String(format: "  hold %4.0f s: server VmRSS %@, %d pings sent", (clock.now - holdStart).seconds,
                         BenchSystem.megabytes(BenchSystem.residentBytes(pid: pid)), pinger.pingsSent))
        }
        let stillOpen = registry.countOpen()
        let healthAfter = await timedHealth(port: port)
        if let ended = server.exitReport(directory: directory) { print(ended) }
        print("after holding \(String(format: "%.0f", hold)) s: \(stillOpen) of \(opened) still open; /healthz \(healthAfter.status) "
              + "in \(String(format: "%.2f", healthAfter.seconds * 1000)) ms; \(who) CPU while holding "
              + String(format: "%.1f %%", (BenchSystem.cpuSeconds(pid: pid) - cpuHoldStart) / max((clock.now - holdStart).seconds, 0.1) * 100))
        pinger.stop()
        server.stop()   // the server first: its sockets close and our closes are then cheap
        registry.closeAll()
    }

    /// Opens `range` with `openers` threads; returns each connection's connect → welcome time (s).
    static func open(range: Range<Int>, port: Int, tokens: [String], registry: ConnectionRegistry) async throws -> [Double] {
        await withCheckedContinuation { (done: CheckedContinuation<[Double], Never>) in
            let results = Mutex<[Double]>([])
            let group = DispatchGroup()
            for worker in 0..<openers {   // threads of their own: blocking connects, not the 2-wide Dispatch pool
                group.enter()
                Thread.detachNewThread {
                    var mine: [Double] = []
                    for i in stride(from: range.lowerBound + worker, to: range.upperBound, by: openers) {
                        let source = "127.0.0.\(2 + i / perSourceAddress)"
                        let t0 = DispatchTime.now().uptimeNanoseconds
                        do {
                            let fd = try SignalingIdleClient.open(source: source, port: port, token: tokens[i])
                            mine.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                            registry.add(fd)
                        } catch {
                            registry.fail("\(error)")
                        }
                    }
                    let collected = mine
                    results.withLock { $0.append(contentsOf: collected) }
                    group.leave()
                }
            }
            group.notify(queue: .global()) { done.resume(returning: results.withLock { $0 }) }
        }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = SignalingIdleClient.address("127.0.0.1", port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 } }
        guard ok else { throw SignalingIdleClient.Failed(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: a.sin_port))
    }
}

/// The open client descriptors, shared by the openers and the pinger.
final class ConnectionRegistry: Sendable {
    private let state = Mutex<(fds: [Int32], failures: Int, firstError: String?)>(([], 0, nil))

    func add(_ fd: Int32) { state.withLock { $0.fds.append(fd) } }
    func fail(_ error: String) { state.withLock { $0.failures += 1; if $0.firstError == nil { $0.firstError = error } } }
    var count: Int { state.withLock { $0.fds.count } }
    var failures: Int { state.withLock { $0.failures } }
    var firstError: String? { state.withLock { $0.firstError } }
    var all: [Int32] { state.withLock { $0.fds } }
    func countOpen() -> Int { all.filter { SignalingIdleClient.isOpen($0) }.count }
    func closeAll() { for fd in state.withLock({ s in defer { s.fds = [] }; return s.fds }) { close(fd) } }
}

/// Every 20 s: a `ping` on every open connection, and the `pong`s read and dropped.
final class Pinger: Sendable {
    private let registry: ConnectionRegistry
    private let running = Atomic<Bool>(false)
    private let sent = Atomic<Int>(0)

    init(registry: ConnectionRegistry) { self.registry = registry }

    var pingsSent: Int { sent.load(ordering: .relaxed) }

    func start() {
        running.store(true, ordering: .relaxed)
        Thread.detachNewThread { [self] in
            var next = Date().addingTimeInterval(20)
            while running.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: 0.2)
                guard Date() >= next else { continue }
                next = next.addingTimeInterval(20)
                for fd in registry.all {
                    _ = SignalingIdleClient.drain(fd)
                    if (try? SignalingIdleClient.sendText(fd, "{\"type\":\"ping\"}", flags: Int32(MSG_DONTWAIT))) != nil {
                        sent.add(1, ordering: .relaxed)
                    }
                }
            }
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }
}
