import Foundation
import Glibc
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyServer
import ParleySRTP
import ParleyStore
import SDP
import STUN
import Synchronization
import WebRTC

/// The media forwarding rate of the echo path on one core: UDP receive (`recvmmsg`) → RFC 7983
/// demux → SRTP unprotect → RTP header rewrite → SRTP protect → UDP send (`sendmmsg`), all on the
/// `MediaTransportServer`'s single loop thread of an in-process `PlatformServer`.
///
/// Pinning (`--pin 1`, the default on machines with 2+ CPUs): the whole process is first pinned to
/// CPU 1 (so every thread it starts inherits that), then the media loop thread alone is moved to
/// CPU 0. The load generator — raw clients doing their own ICE check, DTLS handshake
/// (`DTLSSession`) and SRTP (`SRTPContext`) on one client event-loop thread, like the WebRTC
/// end-to-end test — blasts 160-byte-payload SRTP packets and keeps `window` packets outstanding
/// per session (one new packet per echo received). Echoes are unprotected and counted. The media
/// loop thread's CPU time is read on that thread, so the figure can be put per server core-second.
enum ForwardBench {
    static func run(seconds: Double, sessions: Int, window: Int, pin: Bool) async throws {
        let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let pinned = pin && cpus >= 2
        if pinned { setAffinity(cpu: 1) }
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-bench-recordings"
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        let media = server.media
        if pinned { await onLoop(media.loop) { setAffinity(cpu: 0) } }
        print("# WebRTC forward (echo path: recvmmsg → unprotect → rewrite → protect → sendmmsg on the media loop "
              + "thread\(pinned ? " pinned to CPU 0; load pinned to CPU 1" : ", unpinned"); \(sessions) session(s), "
              + "window \(window), 12+160-byte RTP, \(seconds) s)")

        let clientLoop = try EventLoop(name: "bench-forward")
        var clients: [ForwardClient] = []
        for index in 0..<sessions {
            clients.append(try await ForwardClient.connect(media: media, loop: clientLoop, index: index, window: window))
        }
        let profile = clients.first.map { "\($0.srtpProfile)" } ?? "-"
        for client in clients { clientLoop.execute { client.start() } }

        try await Task.sleep(for: .seconds(1))   // warm-up
        let clock = ContinuousClock()
        let before = await snapshot(clients, loop: clientLoop)
        let cpuBefore = await onLoop(media.loop) { threadCPUSeconds() }
        let start = clock.now
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let after = await snapshot(clients, loop: clientLoop)
        let cpuAfter = await onLoop(media.loop) { threadCPUSeconds() }
        let wall = (clock.now - start).nanoseconds / 1e9
        for client in clients { clientLoop.execute { client.stop() } }
        try await Task.sleep(for: .milliseconds(100))
        let stats = await media.statistics()
        let sessionsInfo = await media.sessions()

        let echoed = Double(after.received - before.received)
        let rate = echoed / wall
        let serverCPU = (cpuAfter - cpuBefore) / wall
        print("SRTP profile \(profile)")
        print("echoed packets/s                              \(format(rate))  "
              + "(\(format(echoed)) in \(String(format: "%.1f", wall)) s)")
        print("media loop thread CPU                         \(String(format: "%.0f", serverCPU * 100)) % of one core "
              + "→ \(format(rate / max(serverCPU, 0.01))) packets per server CPU-second")
        print("client: sent \(format(Double(after.sent))), received \(format(Double(after.received))), "
              + "SRTP errors \(after.errors), window refills after a stall \(after.refills)")
        let echoedByServer = sessionsInfo.reduce(0) { $0 + $1.counters.rtpEchoed }
        let srtpErrors = sessionsInfo.reduce(0) { $0 + $1.counters.srtpErrors }
        print("server: datagrams received \(format(Double(stats.datagramsReceived))), RTP echoed "
              + "\(format(Double(echoedByServer))), SRTP errors \(srtpErrors)")
        for client in clients { client.close() }
        try await Task.sleep(for: .milliseconds(50))
        clientLoop.stop()
        await server.shutdown()
    }

    struct Counts: Sendable { var sent = 0, received = 0, errors = 0, refills = 0 }

    private static func snapshot(_ clients: [ForwardClient], loop: EventLoop) async -> Counts {
        let all = clients
        return await onLoop(loop) {
            all.reduce(into: Counts()) {
                $0.sent += $1.sent; $0.received += $1.received; $0.errors += $1.errors; $0.refills += $1.refills
            }
        }
    }

    static func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            loop.execute { done.resume(returning: body()) }
        }
    }

    /// Pins the calling thread (threads it creates afterwards inherit the mask).
    static func setAffinity(cpu: Int) {
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { raw in
            for i in raw.indices { raw[i] = 0 }
            raw[cpu / 8] = UInt8(1 << (cpu % 8))
        }
        // Glibc declares sched_setaffinity only under _GNU_SOURCE, which the Swift overlay lacks.
        typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "sched_setaffinity") else {
            return print("sched_setaffinity not found; not pinned")
        }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        if withUnsafeBytes(of: &set, { setAffinity(0, $0.count, $0.baseAddress!) }) != 0 {
            print("sched_setaffinity(cpu \(cpu)) failed: errno \(errno)")
        }
    }

    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// One echo load-generating session: keeps `window` packets outstanding (one new packet per echo).
final class ForwardClient: BenchMediaClient, @unchecked Sendable {
    let window: Int
    private let ssrc: UInt32
    private var sequence: UInt16 = 0
    private var timestamp: UInt32 = 0
    private var running = false
    private var lastReceived = 0, ticks = 0
    var sent = 0, received = 0, errors = 0, refills = 0

    private init(loop: EventLoop, window: Int, ssrc: UInt32) {
        self.window = window
        self.ssrc = ssrc
        super.init(loop: loop)
    }

    /// ICE, DTLS and SRTP against an echo session of `media`.
    static func connect(media: MediaTransportServer, loop: EventLoop, index: Int, window: Int) async throws -> ForwardClient {
        let client = ForwardClient(loop: loop, window: window, ssrc: 0x1000 + UInt32(index))
        try await client.handshake(media: media, index: index, offer: { fingerprint, port in
            offer(fingerprint: fingerprint, port: port, index: index)
        }, create: { try await media.createEchoSession(offer: $0).sdp })
        return client
    }

    private static func offer(fingerprint: DTLSFingerprint, port: UInt16, index: Int) -> String {
        BenchMediaClient.sessionLines(index: index) + BenchMediaClient.section(
            "audio", mid: "0", port: port, index: index, fingerprint: fingerprint, direction: "sendrecv",
            rtpmap: "0 PCMU/8000", ssrc: 0x1000 + UInt32(index), first: true)
    }

    /// On the loop: fills the window and starts the stall/consent timer.
    func start() {
        running = true
        send(count: window)
        tick()
    }

    func stop() { running = false }

    /// Every 20 ms: if nothing came back since the last tick, the window was lost (UDP drops);
    /// refill it. Every 5 s: an ICE consent check.
    private func tick() {
        guard running else { return }
        ticks += 1
        if received == lastReceived {
            refills += 1
            send(count: window)
        }
        lastReceived = received
        if ticks % 250 == 0 { sendConsentCheck() }
        loop.schedule(after: .milliseconds(20)) { [self] in tick() }
    }

    override func media(_ datagrams: [Datagram]) {
        var echoes = 0
        for datagram in datagrams where MediaPacketClass.classify(datagram.bytes) == .rtp {
            if unprotect(datagram) != nil { received += 1 } else { errors += 1 }
            echoes += 1   // one fewer outstanding either way
        }
        if running, echoes > 0 { send(count: echoes) }
    }

    private func send(count: Int) {
        var out: [Datagram] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            sequence &+= 1
            timestamp &+= 160
            SRTPBench.writePacket(scratch, sequence: sequence, timestamp: timestamp)
            scratch.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
            if let datagram = protectScratch(length: SRTPBench.packetBytes) {
                out.append(datagram)
                sent += 1
            } else {
                errors += 1
            }
        }
        socket.send(out)
    }
}
