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

/// Received datagrams during the handshake, polled with a deadline.
private final class HandshakeInbox: Sendable {
    private let queue = Mutex<[Datagram]>([])
    func push(_ datagrams: [Datagram]) { queue.withLock { $0.append(contentsOf: datagrams) } }
    func next(_ kind: MediaPacketClass, timeout: Duration) async -> Datagram? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = queue.withLock { q -> Datagram? in
                guard let i = q.firstIndex(where: { MediaPacketClass.classify($0.bytes) == kind }) else { return nil }
                return q.remove(at: i)
            }
            if let found { return found }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }
}

/// One load-generating session. After `connect`, everything runs on the client loop thread.
final class ForwardClient: @unchecked Sendable {
    struct SetupFailed: Error, CustomStringConvertible { var description: String }

    let loop: EventLoop
    let window: Int
    private var socket: UDPSocket!
    private var inbox: HandshakeInbox?
    private var srtp: SRTPContext!
    private(set) var srtpProfile: SRTPProfile = .aes128CMHMACSHA1_80
    private var server: SocketAddress!
    private var consentCheck: [UInt8] = []
    private let ssrc: UInt32
    private var sequence: UInt16 = 0
    private var timestamp: UInt32 = 0
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
    private var running = false
    private var lastReceived = 0, ticks = 0
    var sent = 0, received = 0, errors = 0, refills = 0

    private init(loop: EventLoop, window: Int, ssrc: UInt32) {
        self.loop = loop
        self.window = window
        self.ssrc = ssrc
    }

    deinit { scratch.deallocate() }

    /// ICE (one nominating check), DTLS client handshake, SRTP keys, against `media`.
    static func connect(media: MediaTransportServer, loop: EventLoop, index: Int, window: Int) async throws -> ForwardClient {
        let client = ForwardClient(loop: loop, window: window, ssrc: 0x1000 + UInt32(index))
        let inbox = HandshakeInbox()
        client.inbox = inbox
        client.socket = try UDPSocket(host: "127.0.0.1", port: 0, loop: loop, batchSize: 64) { [client] in
            client.receive($0)
        }
        let socket = client.socket!
        let serverAddress = try SocketAddress.resolve(host: "127.0.0.1", port: media.localPort)
        client.server = serverAddress
        func send(_ bytes: [UInt8]) { socket.send([Datagram(address: serverAddress, bytes: bytes)]) }

        let certificate = try CertificateIdentity(commonName: "bench-client")
        let answer = try await media.createEchoSession(offer: offer(fingerprint: certificate.fingerprint,
                                                                   port: UInt16(socket.localPort), index: index))
        let sdp = try SessionDescription(parsing: answer.sdp)
        guard let audio = sdp.media.first, let ufrag = audio.iceUfrag, let pwd = audio.icePwd,
              let fp = audio.fingerprints.first,
              let serverFingerprint = DTLSFingerprint(algorithm: .sha256, digest: fp.bytes) else {
            throw SetupFailed(description: "unusable answer:\n\(answer.sdp)")
        }
        let check = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 7, low: UInt64(index)),
                                attributes: [.username("\(ufrag):cli\(index)"), .priority(0x6E00_1EFF),
                                             .iceControlling(1234), .useCandidate])
        client.consentCheck = try check.serialized(
            integrity: .sha1(key: Array(pwd.utf8), hmac: { HMAC.sha1(key: $0, message: $1) }), fingerprint: true)
        send(client.consentCheck)
        guard await inbox.next(.stun, timeout: .seconds(3)) != nil else { throw SetupFailed(description: "no STUN response") }

        let dtls = try DTLSSession(role: .client, certificate: certificate, remoteFingerprint: serverFingerprint)
        for d in dtls.start() { send(d) }
        let deadline = ContinuousClock.now + .seconds(10)
        while dtls.state != .connected, ContinuousClock.now < deadline {
            if case .failed(let error) = dtls.state { throw SetupFailed(description: "DTLS failed: \(error)") }
            if let datagram = await inbox.next(.dtls, timeout: .milliseconds(200)) {
                for d in dtls.receive(datagram.bytes).datagrams { send(d) }
            } else {
                for d in dtls.handleTimeout().datagrams { send(d) }
            }
        }
        guard dtls.state == .connected else { throw SetupFailed(description: "DTLS did not connect") }
        let srtp = try DTLSSRTPKeying.context(for: dtls)
        let profile = srtp.profile
        let handOver = UncheckedBox(srtp)
        await ForwardBench.onLoop(loop) { [client] in
            client.srtp = handOver.value
            client.srtpProfile = profile
            client.inbox = nil
        }
        return client
    }

    private static func offer(fingerprint: DTLSFingerprint, port: UInt16, index: Int) -> String {
        """
        v=0\r
        o=- \(index + 1) 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        m=audio \(port) UDP/TLS/RTP/SAVPF 0\r
        c=IN IP4 127.0.0.1\r
        a=mid:0\r
        a=sendrecv\r
        a=ice-ufrag:cli\(index)\r
        a=ice-pwd:clientpassword0123456789\r
        a=fingerprint:\(fingerprint.sdpValue)\r
        a=setup:actpass\r
        a=rtcp-mux\r
        a=rtpmap:0 PCMU/8000\r
        a=ssrc:\(0x1000 + index) cname:bench\r
        a=candidate:1 1 udp 2130706431 127.0.0.1 \(port) typ host\r
        a=end-of-candidates\r

        """
    }

    /// On the loop: fills the window and starts the stall/consent timer.
    func start() {
        running = true
        send(count: window)
        tick()
    }

    func stop() { running = false }

    func close() { socket.close() }

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
        if ticks % 250 == 0 { socket.send([Datagram(address: server, bytes: consentCheck)]) }
        loop.schedule(after: .milliseconds(20)) { [self] in tick() }
    }

    private func receive(_ datagrams: [Datagram]) {
        if let inbox {
            inbox.push(datagrams)
            return
        }
        var echoes = 0
        for datagram in datagrams where MediaPacketClass.classify(datagram.bytes) == .rtp {
            let length = datagram.bytes.count
            guard length <= scratch.count else { errors += 1; continue }
            datagram.bytes.withUnsafeBytes { scratch.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: length) }
            do {
                _ = try srtp.unprotect(scratch, length: length)
                received += 1
                echoes += 1
            } catch {
                errors += 1
                echoes += 1   // still one fewer outstanding
            }
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
            do {
                let length = try srtp.protect(scratch, length: SRTPBench.packetBytes)
                out.append(Datagram(address: server, bytes: Array(UnsafeRawBufferPointer(rebasing: scratch[0..<length]))))
                sent += 1
            } catch {
                errors += 1
            }
        }
        socket.send(out)
    }
}

/// Hands a loop-confined value to the loop thread once (the sender stops using it).
private struct UncheckedBox<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }
