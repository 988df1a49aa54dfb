import Foundation
import Glibc
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyStore
import Synchronization
import WebRTC

/// `parley-bench calls`: N concurrent bridged calls on loopback, each two call sessions (legs)
/// forwarded both ways, every leg's client sending 50 Opus-sized packets/s (80-byte payload,
/// 32 kbit/s) with real SRTP. Reports the media loop's CPU per call, the server's memory per
/// call, forwarded packets/s, loss per leg, one-way delay and jitter, and — for the first K calls,
/// set up through `/v1/signaling` — invite → connected times.
///
/// This process is the server only: an in-process `PlatformServer` (its `VoiceService` bridges
/// the K signaling calls on `server.media`) and, on the same loop thread, a second
/// `MediaTransportServer` for the other calls, which this process sets up directly
/// (`createCallSession` × 2, `forward` both ways — what `VoiceService` does), because
/// `PlatformServer`'s media server allows 256 sessions (128 calls) with no option to change it.
/// That loop thread is pinned to CPU 0 and its CPU time is the server figure; everything else is
/// pinned to CPU 1. The clients (`CallsBenchLeg`: raw ICE, DTLS and SRTP, no full
/// `PeerConnection`, which could not produce 1,000 streams on one core) run in `calls-client`
/// processes on CPU 1 (`CallsBenchWorker`), so this process's RSS is the server's alone.
enum CallsBench {
    static let setupConcurrency = 16

    static func run(calls: Int, seconds: Double, pin: Bool, viaSignaling requested: Int, workers requestedWorkers: Int,
                    receiveBuffer: Int) async throws {
        BenchSystem.lineBufferStandardOutput()
        if ProcessInfo.processInfo.environment["PARLEY_BENCH_LOG"] != nil { Log.setLevel(.debug) }
        let viaSignaling = max(0, min(requested, calls, 100))
        let direct = calls - viaSignaling
        let pinned = pin && sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        if pinned { BenchSystem.pinProcess(cpu: 1) }
        let fuzzing = BenchSystem.fuzzerRunning
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-bench-recordings"
        let platform = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try platform.start()
        var bulkConfig = MediaTransportServer.Configuration(host: "127.0.0.1", port: 0)
        bulkConfig.maxSessions = 2 * direct + 16
        let bulk = try MediaTransportServer(configuration: bulkConfig, loop: platform.media.loop)
        let mediaLoop = platform.media.loop
        if pinned { await ForwardBench.onLoop(mediaLoop) { BenchSystem.setAffinity(thread: 0, cpu: 0) } }
        let workerCount = max(1, min(requestedWorkers > 0 ? requestedWorkers : (calls + 49) / 50, 16, calls))
        print("# Bridged calls: \(calls) calls (\(viaSignaling) through /v1/signaling, \(direct) directly on the media "
              + "server), 2 legs each, 50 packets/s per leg each way, 12+80-byte Opus-sized RTP + SRTP, \(seconds) s; "
              + (pinned ? "media loop thread pinned to CPU 0, \(workerCount) client processes and the rest on CPU 1" : "unpinned"))
        print("machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs, load average \(BenchSystem.loadAverage), "
              + "parley-fuzz \(fuzzing ? "RUNNING (one core)" : "not running")")
        let srtpBefore = try CallsBenchProbe.protectNanoseconds()
        if receiveBuffer > 0 {   // experiment: the media server leaves SO_RCVBUF at the system default
            let sizes = [platform.media.localPort, bulk.localPort].map { BenchSystem.setReceiveBuffer(udpPort: $0, bytes: receiveBuffer) }
            print("experiment: media sockets' SO_RCVBUF set from outside to \(sizes.map { format(Double($0)) }) bytes")
        }

        // Clients: contiguous ranges of calls per process.
        var links: [CallsBenchWorkerLink] = []
        let perWorker = (calls + workerCount - 1) / workerCount
        for first in stride(from: 0, to: calls, by: perWorker) {
            links.append(try CallsBenchWorkerLink(first: first, count: min(perWorker, calls - first), pin: pinned))
        }
        var offers: [Int: String] = [:]
        for link in links { offers.merge(try await link.offers()) { a, _ in a } }
        func link(of call: Int) -> CallsBenchWorkerLink { links[call / perWorker] }
        try await Task.sleep(for: .milliseconds(300))
        let rssStart = BenchSystem.residentBytes()

        // 1. K calls the real way, one after another (so each setup time is not queued behind others).
        let creds = platform.defaultCredentials
        for link in links where link.firstCall < viaSignaling {
            link.send("CRED http://127.0.0.1:\(platform.port) \(creds.account.sid) \(creds.apiKey.sid) \(creds.apiKey.secret)")
        }
        var setups: [(setup: Double, answer: Double, incoming: Double)] = []
        for call in 0..<viaSignaling {
            link(of: call).send("PLACE \(call)")
            let reply = await link(of: call).result("call:\(call)").split(separator: " ")
            guard reply.first == "PLACED", reply.count == 5, let s = Double(reply[2]), let a = Double(reply[3]),
                  let i = Double(reply[4]) else {
                throw CallsBenchWorkerLink.Failed(description: "signaling call \(call): \(reply.joined(separator: " "))")
            }
            setups.append((s, a, i))
        }
        print("  … \(viaSignaling) signaling calls connected")
        let rssSignaling = BenchSystem.residentBytes()

        // 2. The rest directly: createCallSession × 2, forward both ways, both legs connected.
        let clock = ContinuousClock()
        let setupCPUStart = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() }
        let setupStart = clock.now
        let failures = FailureCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = viaSignaling, done = 0
            func addCall() {
                let call = next, link = link(of: call)
                let offerA = offers[2 * call] ?? "", offerB = offers[2 * call + 1] ?? ""
                group.addTask {
                    try await connectDirect(call: call, bulk: bulk, offers: (offerA, offerB), link: link, failures: failures)
                }
                next += 1
            }
            while next < calls, next < viaSignaling + setupConcurrency { addCall() }
            while try await group.next() != nil {
                done += 1
                if done % 100 == 0 { print("  … \(done) direct calls connected") }
                if next < calls { addCall() }
            }
        }
        let setupWall = (clock.now - setupStart).seconds
        let setupCPU = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() } - setupCPUStart
        try await Task.sleep(for: .seconds(1))   // bridges settle (VoiceService reacts to session events)
        let rssCalls = BenchSystem.residentBytes()
        let srtpAfter = try CallsBenchProbe.protectNanoseconds()

        // 3. Media: warm-up, then the measured window.
        let udpBefore = BenchSystem.udpCounters()
        for link in links { link.send("START") }
        try await Task.sleep(for: .seconds(2))
        let windowStart0 = await mark(links)
        let forwardedBefore = await platform.media.statistics().rtpForwarded + bulk.statistics().rtpForwarded
        let cpuBefore = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() }
        let scheduleBefore = await ForwardBench.onLoop(mediaLoop) { BenchSystem.threadSchedule() }
        let processCPUBefore = BenchSystem.cpuSeconds(pid: getpid())
        let windowStart = clock.now
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let cpuAfter = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() }
        let scheduleAfter = await ForwardBench.onLoop(mediaLoop) { BenchSystem.threadSchedule() }
        let processCPUAfter = BenchSystem.cpuSeconds(pid: getpid())
        let forwardedAfter = await platform.media.statistics().rtpForwarded + bulk.statistics().rtpForwarded
        var window = await mark(links)
        window.subtractCounts(windowStart0)
        let wall = (clock.now - windowStart).seconds
        var final: [Int: CallsBenchReport.LegCounts] = [:]
        for link in links {
            for line in await link.request("STOP") {
                if let counts = CallsBenchReport.LegCounts(line: line) { final[counts.leg] = counts }
            }
        }
        let udpAfter = BenchSystem.udpCounters()
        let sessions = await platform.media.sessions() + bulk.sessions()

        let report = CallsBenchReport(calls: calls, viaSignaling: viaSignaling, wall: wall, workers: links.count)
        report.setup(direct: direct, wall: setupWall, cpu: setupCPU, failures: failures.value, signaling: setups)
        report.cpu(media: (cpuAfter - cpuBefore) / wall, process: (processCPUAfter - processCPUBefore) / wall,
                   forwarded: Double(forwardedAfter - forwardedBefore) / wall, window: window,
                   waiting: (scheduleAfter.waiting - scheduleBefore.waiting) / wall, live: sessions.count)
        report.loss(final, sessions: sessions, udpBefore: udpBefore, udpAfter: udpAfter)
        report.delay(window, final: final)
        report.memory(start: rssStart, signaling: rssSignaling, calls: rssCalls, direct: direct)
        print(String(format: "SRTP protect in this process (SRTPContext): %.1f µs with no call sessions, "
                     + "%.1f µs with %d live contexts", srtpBefore / 1000, srtpAfter / 1000, 2 * calls))

        for link in links { link.quit() }
        await bulk.shutdown()
        await platform.shutdown()
    }

    /// One call without signaling: two call sessions from the client's offers, forwarded both
    /// ways, the answers sent to the client process, both legs connected.
    static func connectDirect(call: Int, bulk: MediaTransportServer, offers: (String, String), link: CallsBenchWorkerLink,
                              failures: FailureCounter) async throws {
        let events: @Sendable (PeerSessionEvent) -> Void = { event in
            if case .stateChanged(_, let state, _) = event, state == .failed { failures.increment() }
        }
        let a = try await bulk.createCallSession(offer: offers.0, events: events)
        let b = try await bulk.createCallSession(offer: offers.1, events: events)
        guard await bulk.forward(from: a.id, to: b.id), await bulk.forward(from: b.id, to: a.id) else {
            throw CallsBenchWorkerLink.Failed(description: "forward refused for call \(call)")
        }
        try await answer(call: call, (a.sdp, b.sdp), link: link)
    }

    /// Sends call `call`'s two answers to its client process and waits until both legs connected.
    static func answer(call: Int, _ answers: (String, String), link: CallsBenchWorkerLink) async throws {
        link.send("ANSWER \(2 * call) \(Data(answers.0.utf8).base64EncodedString())")
        link.send("ANSWER \(2 * call + 1) \(Data(answers.1.utf8).base64EncodedString())")
        for leg in [2 * call, 2 * call + 1] {
            let reply = await link.result("leg:\(leg)")
            guard reply.hasPrefix("CONNECTED") else { throw CallsBenchWorkerLink.Failed(description: "leg \(leg): \(reply)") }
        }
    }

    /// `MARK` on every client process: counts since the start, and the delay histogram and pacer
    /// lag since the previous mark.
    static func mark(_ links: [CallsBenchWorkerLink]) async -> CallsBenchReport.Window {
        var window = CallsBenchReport.Window()
        for link in links { window.add(await link.request("MARK")) }
        return window
    }
}

/// Counts call sessions that failed (ICE, DTLS or consent), from their event streams.
final class FailureCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
