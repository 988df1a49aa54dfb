import Foundation
import Glibc
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyServer
import ParleySRTP
import ParleyStore
import Synchronization
import WebRTC

/// `parley-bench calls`: N concurrent bridged calls on loopback, each two call sessions (legs) on
/// one media loop forwarded both ways, every leg's client sending 50 Opus-sized packets/s (80-byte
/// payload, 32 kbit/s) with real SRTP. Reports the media loop's CPU per call, memory per call,
/// forwarded packets/s, loss per leg, one-way delay and jitter, and — for the first K calls, set up
/// through `/v1/signaling` — invite → connected times.
///
/// Layout: an in-process `PlatformServer` (its `VoiceService` bridges the K signaling calls on
/// `server.media`) and, on the same loop thread, a second `MediaTransportServer` for the other
/// calls, because `PlatformServer`'s media server allows 256 sessions (128 calls) and has no
/// option to change that. Both sockets are on one loop thread, pinned to CPU 0 (the rest of the
/// process, clients included, on CPU 1), and that thread's CPU time is the server figure.
enum CallsBench {
    static let setupConcurrency = 16

    struct LegCounts: Sendable { var sent = 0, received = 0, played = 0, srtpErrors = 0, sendDropped = 0, rtcp = 0, jitter = 0.0 }

    static func run(calls: Int, seconds: Double, pin: Bool, viaSignaling requested: Int) async throws {
        BenchSystem.lineBufferStandardOutput()
        if ProcessInfo.processInfo.environment["PARLEY_BENCH_LOG"] != nil { Log.setLevel(.debug) }
        let viaSignaling = max(0, min(requested, calls, 100))
        let direct = calls - viaSignaling
        let pinned = pin && sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        if pinned { ForwardBench.setAffinity(cpu: 1) }
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
        if pinned { await ForwardBench.onLoop(mediaLoop) { ForwardBench.setAffinity(cpu: 0) } }
        print("# Bridged calls: \(calls) calls (\(viaSignaling) through /v1/signaling, \(direct) directly on the media "
              + "server), 2 legs each, 50 packets/s per leg each way, 12+80-byte Opus-sized RTP + SRTP, \(seconds) s; "
              + (pinned ? "media loop thread pinned to CPU 0, clients and the rest on CPU 1" : "unpinned"))
        print("machine: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs, load average \(BenchSystem.loadAverage), "
              + "parley-fuzz \(fuzzing ? "RUNNING (one core)" : "not running")")

        let clientLoop = try EventLoop(name: "bench-calls")
        let certificate = try CertificateIdentity(commonName: "bench-calls")
        let delays = DelayHistogram()
        try await Task.sleep(for: .milliseconds(200))

        // Client legs first (sockets, buffers), so their memory can be told apart.
        let rssStart = BenchSystem.residentBytes()
        var built: [CallsBenchLeg] = []
        for i in 0..<(2 * calls) { built.append(try CallsBenchLeg(index: i, loop: clientLoop, delays: delays)) }
        let legs = built
        try await Task.sleep(for: .milliseconds(200))
        let rssLegs = BenchSystem.residentBytes()

        // 1. K calls the real way, one after another (so each setup time is not queued behind others).
        var placed: [CallsBenchSignalingCall] = []
        for c in 0..<viaSignaling {
            placed.append(try await CallsBenchSignalingCall.place(
                index: c, server: platform, callerLeg: legs[2 * c], calleeLeg: legs[2 * c + 1], certificate: certificate))
        }
        let signalingCalls = placed
        print("  … \(viaSignaling) signaling calls connected")
        let rssSignaling = BenchSystem.residentBytes()

        // 2. The rest directly: createCallSession × 2, forward both ways, connect both legs.
        let failures = FailureCounter()
        let clock = ContinuousClock()
        let setupCPUStart = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() }
        let setupStart = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = viaSignaling
            func addCall() {
                let a = legs[2 * next], b = legs[2 * next + 1]
                group.addTask { try await connectDirect(bulk: bulk, a: a, b: b, certificate: certificate, failures: failures) }
                next += 1
            }
            while next < calls, next < viaSignaling + setupConcurrency { addCall() }
            var done = 0
            while try await group.next() != nil {
                done += 1
                if done % 100 == 0 { print("  … \(done) direct calls connected") }
                if next < calls { addCall() }
            }
        }
        let setupWall = (clock.now - setupStart).seconds
        let setupCPU = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() } - setupCPUStart
        try await Task.sleep(for: .seconds(1))   // bridges settle (VoiceService reacts to session events)
        let rssDirect = BenchSystem.residentBytes()
        let profile = await ForwardBench.onLoop(clientLoop) { legs.first?.profile } ?? .aeadAES128GCM

        // 3. Media.
        let pacer = CallsBenchPacer(loop: clientLoop, legs: legs)
        let udpBefore = BenchSystem.udpCounters()
        clientLoop.execute { pacer.start() }
        let keepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(20))
                for call in signalingCalls { await call.ping() }
            }
        }
        try await Task.sleep(for: .seconds(2))   // warm-up
        await ForwardBench.onLoop(clientLoop) {
            delays.reset()
            pacer.resetLag()
        }
        let before = await counts(legs, loop: clientLoop)
        let forwardedBefore = await platform.media.statistics().rtpForwarded + bulk.statistics().rtpForwarded
        let cpuBefore = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() }
        let clientCPUBefore = await ForwardBench.onLoop(clientLoop) { ForwardBench.threadCPUSeconds() }
        let windowStart = clock.now
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let cpuAfter = await ForwardBench.onLoop(mediaLoop) { ForwardBench.threadCPUSeconds() }
        let clientCPUAfter = await ForwardBench.onLoop(clientLoop) { ForwardBench.threadCPUSeconds() }
        let forwardedAfter = await platform.media.statistics().rtpForwarded + bulk.statistics().rtpForwarded
        let during = await counts(legs, loop: clientLoop)
        let wall = (clock.now - windowStart).seconds
        let delayFigures = await ForwardBench.onLoop(clientLoop) {
            (p50: delays.quantileMillis(0.5), p99: delays.quantileMillis(0.99), p999: delays.quantileMillis(0.999),
             max: Double(delays.maxNanos) / 1e6, lag: Double(pacer.maxLagNanos) / 1e6, late: pacer.lateSends)
        }
        clientLoop.execute { pacer.stop() }
        keepAlive.cancel()
        try await Task.sleep(for: .milliseconds(500))   // packets in flight arrive
        let final = await counts(legs, loop: clientLoop)
        let udpAfter = BenchSystem.udpCounters()
        let sessions = await platform.media.sessions() + bulk.sessions()

        // 4. Report.
        print("SRTP profile \(profile); setup: \(direct) direct calls in \(String(format: "%.1f", setupWall)) s "
              + "(\(setupConcurrency) at a time), media loop CPU \(String(format: "%.2f", setupCPU * 1000 / Double(max(direct, 1)))) ms "
              + "per call (2 ICE checks + 2 DTLS handshakes); session failures \(failures.value)")
        if !signalingCalls.isEmpty {
            let setup = signalingCalls.map(\.setupSeconds).sorted()
            let answer = signalingCalls.map(\.answerSeconds).sorted()
            let incoming = signalingCalls.map(\.incomingSeconds).sorted()
            func ms(_ s: [Double], _ q: Double) -> String { String(format: "%.1f", BenchSystem.percentile(s, q) * 1000) }
            print("signaling calls (\(signalingCalls.count), one at a time): invite → both legs connected p50 \(ms(setup, 0.5)) ms, "
                  + "p95 \(ms(setup, 0.95)) ms, max \(ms(setup, 1)) ms; invite → caller's answer p50 \(ms(answer, 0.5)) ms; "
                  + "invite → callee's incoming p50 \(ms(incoming, 0.5)) ms")
        }
        let serverCPU = (cpuAfter - cpuBefore) / wall
        let perCall = serverCPU / Double(calls)
        print("media loop thread CPU                 \(String(format: "%.1f", serverCPU * 100)) % of one core for \(calls) calls "
              + "→ \(String(format: "%.3f", perCall * 100)) % per call → \(format(1 / max(perCall, 1e-9))) calls per core")
        let forwardedRate = Double(forwardedAfter - forwardedBefore) / wall
        let receivedWindow = zip(during, before).reduce(0) { $0 + $1.0.received - $1.1.received }
        let sentWindow = zip(during, before).reduce(0) { $0 + $1.0.sent - $1.1.sent }
        print("forwarded packets/s (server)          \(format(forwardedRate))  (clients: sent \(format(Double(sentWindow) / wall))/s, "
              + "received \(format(Double(receivedWindow) / wall))/s, window \(String(format: "%.1f", wall)) s)")
        reportLoss(final, sessions: sessions, udpBefore: udpBefore, udpAfter: udpAfter)
        reportWorstLegs(final, legs: legs, sessions: sessions, viaSignaling: viaSignaling)
        let jitters = final.map(\.jitter).sorted()
        print(String(format: "one-way delay client → server → client: p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms; "
                     + "RFC 3550 jitter per leg: mean %.0f µs, max %.0f µs", delayFigures.p50, delayFigures.p99,
                     delayFigures.p999, delayFigures.max, jitters.reduce(0, +) / Double(max(jitters.count, 1)) / 1000,
                     (jitters.last ?? 0) / 1000))
        print(String(format: "client loop thread CPU %.0f %% of one core; pacer max lag %.1f ms, %d sends > 5 ms late",
                     (clientCPUAfter - clientCPUBefore) / wall * 100, delayFigures.lag, delayFigures.late))

        // Memory: the client's SRTP contexts (2 per call) are measured the same way, now, and subtracted.
        let srtpPerContext = try calibrateSRTPContextBytes(count: 2 * max(direct, 1), profile: profile)
        let clientLeg = Double(rssLegs - rssStart) / Double(2 * calls)
        let directTotal = Double(rssDirect - rssSignaling) / Double(max(direct, 1))
        let serverPerCall = directTotal - 2 * srtpPerContext
        print("memory: RSS \(BenchSystem.megabytes(rssStart)) → \(BenchSystem.megabytes(rssLegs)) (client legs) → "
              + "\(BenchSystem.megabytes(rssSignaling)) (signaling calls) → \(BenchSystem.megabytes(rssDirect)) (direct calls)")
        print("memory per direct call                \(BenchSystem.kilobytes(directTotal)) RSS delta, of which the client's two "
              + "SRTP contexts ≈ \(BenchSystem.kilobytes(2 * srtpPerContext)) → server ≈ \(BenchSystem.kilobytes(serverPerCall)) per call "
              + "(client leg sockets and buffers, created before, \(BenchSystem.kilobytes(clientLeg)) per leg, not included)")
        if viaSignaling > 0 {
            print("memory per signaling call             \(BenchSystem.kilobytes(Double(rssSignaling - rssLegs) / Double(viaSignaling))) "
                  + "(both sides: 2 server + 2 client WebSockets, call state, 2 media sessions, client SRTP)")
        }

        for leg in legs { leg.close() }
        for call in signalingCalls { await call.close() }
        await bulk.shutdown()
        await platform.shutdown()
        clientLoop.stop()
    }

    /// One call without signaling: two call sessions, forwarded both ways, both legs connected.
    static func connectDirect(bulk: MediaTransportServer, a: CallsBenchLeg, b: CallsBenchLeg,
                              certificate: CertificateIdentity, failures: FailureCounter) async throws {
        let events: @Sendable (PeerSessionEvent) -> Void = { event in
            if case .stateChanged(_, let state, _) = event, state == .failed { failures.increment() }
        }
        let answerA = try await bulk.createCallSession(offer: a.offer(fingerprint: certificate.fingerprint), events: events)
        let answerB = try await bulk.createCallSession(offer: b.offer(fingerprint: certificate.fingerprint), events: events)
        guard await bulk.forward(from: answerA.id, to: answerB.id), await bulk.forward(from: answerB.id, to: answerA.id) else {
            throw CallsBenchLeg.SetupFailed(description: "forward refused for legs \(a.index)/\(b.index)")
        }
        async let connectA: Void = a.connect(answer: answerA.sdp, certificate: certificate)
        async let connectB: Void = b.connect(answer: answerB.sdp, certificate: certificate)
        _ = try await (connectA, connectB)
    }

    /// Loss per leg: what the peer leg sent that this leg did not receive (after a drain).
    static func reportLoss(_ final: [LegCounts], sessions: [PeerSessionSnapshot], udpBefore: [String: Int],
                           udpAfter: [String: Int]) {
        var sent = 0, lost = 0, worst = 0.0, legsWithLoss = 0
        for i in final.indices {
            let peerSent = final[i ^ 1].sent
            let missing = max(0, peerSent - final[i].received)
            sent += peerSent
            lost += missing
            if missing > 0 { legsWithLoss += 1 }
            if peerSent > 0 { worst = max(worst, Double(missing) / Double(peerSent)) }
        }
        let played = final.reduce(0) { $0 + $1.played }
        let srtpErrors = final.reduce(0) { $0 + $1.srtpErrors }
        let sendDropped = final.reduce(0) { $0 + $1.sendDropped }
        print(String(format: "loss                                  %.4f %% (%@ of %@ packets over the whole media phase); "
                     + "worst leg %.3f %%, %d of %d legs lost any", 100 * Double(lost) / Double(max(sent, 1)),
                     format(Double(lost)), format(Double(sent)), worst * 100, legsWithLoss, final.count))
        let forwardDropped = sessions.reduce(0) { $0 + $1.counters.forwardDropped }
        let serverSRTP = sessions.reduce(0) { $0 + $1.counters.srtpErrors }
        let connected = sessions.filter { $0.state == .connected }.count
        let rcvbuf = (udpAfter["RcvbufErrors"] ?? 0) - (udpBefore["RcvbufErrors"] ?? 0)
        let inErrors = (udpAfter["InErrors"] ?? 0) - (udpBefore["InErrors"] ?? 0)
        print("  server: \(connected) of \(sessions.count) sessions connected, forwardDropped \(forwardDropped), SRTP errors "
              + "\(serverSRTP); clients: SRTP errors \(srtpErrors), send ring full \(sendDropped), frames played by the "
              + "server \(played); kernel UDP RcvbufErrors +\(rcvbuf), InErrors +\(inErrors) (whole machine)")
    }

    /// The legs that lost more than 1 %, with the server's view of their sessions (matched by SSRC).
    static func reportWorstLegs(_ final: [LegCounts], legs: [CallsBenchLeg], sessions: [PeerSessionSnapshot], viaSignaling: Int) {
        let bySSRC = Dictionary(sessions.compactMap { s in s.remoteSSRC.map { ($0, s) } }, uniquingKeysWith: { a, _ in a })
        let bad = final.indices.filter { i in
            let peerSent = final[i ^ 1].sent
            return peerSent > 0 && Double(peerSent - final[i].received) / Double(peerSent) > 0.01
        }
        for i in bad.prefix(6) {
            let s = bySSRC[legs[i].ssrc], peer = bySSRC[legs[i ^ 1].ssrc]
            print("  leg \(i) (\(i / 2 < viaSignaling ? "signaling" : "direct") call \(i / 2)): received \(final[i].received) of "
                  + "\(final[i ^ 1].sent), played \(final[i].played); server session \(s?.id.prefix(8) ?? "?") "
                  + "\(s.map { "\($0.state)" } ?? "?") source \(s?.forwardingSource?.prefix(8) ?? "none") forwarded "
                  + "\(s?.counters.rtpForwarded ?? 0) dropped \(s?.counters.forwardDropped ?? 0); peer session "
                  + "\(peer?.id.prefix(8) ?? "?") received \(peer?.counters.rtpReceived ?? 0) sinks \(peer?.forwardingSinks.map { $0.prefix(8) } ?? [])")
        }
    }

    static func counts(_ legs: [CallsBenchLeg], loop: EventLoop) async -> [LegCounts] {
        await ForwardBench.onLoop(loop) {
            legs.map { LegCounts(sent: $0.sent, received: $0.received, played: $0.played, srtpErrors: $0.srtpErrors,
                                 sendDropped: $0.sendDropped, rtcp: $0.rtcpReceived, jitter: $0.jitterNanos) }
        }
    }

    /// RSS bytes per `SRTPContext` (what each client leg keeps after its handshake), measured
    /// like the phases above: `count` contexts with random keys, trimmed RSS before and after.
    static func calibrateSRTPContextBytes(count: Int, profile: SRTPProfile) throws -> Double {
        let saltBytes = profile == .aeadAES128GCM ? 12 : 14
        let before = BenchSystem.residentBytes()
        var contexts: [SRTPContext] = []
        contexts.reserveCapacity(count)
        for _ in 0..<count {
            contexts.append(try SRTPContext(keyingMaterial: SRTPKeyingMaterial(
                profile: profile, localKey: SecureRandom.bytes(16), localSalt: SecureRandom.bytes(saltBytes),
                remoteKey: SecureRandom.bytes(16), remoteSalt: SecureRandom.bytes(saltBytes))))
        }
        let after = BenchSystem.residentBytes()
        withExtendedLifetime(contexts) {}
        return Double(after - before) / Double(count)
    }
}

/// Counts call sessions that failed (ICE, DTLS or consent), from their event streams.
final class FailureCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
