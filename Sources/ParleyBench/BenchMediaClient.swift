import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleySRTP
import SDP
import STUN
import Glibc
import Synchronization
import WebRTC

/// The raw WebRTC client the media benchmarks load the server with: its own UDP socket on a
/// client event loop, one nominating ICE check, a DTLS client handshake (`DTLSSession`) and an
/// `SRTPContext`, then whatever traffic a subclass makes (`media(_:)`). After `handshake`,
/// everything runs on the client loop thread.
class BenchMediaClient: @unchecked Sendable {
    struct SetupFailed: Error, CustomStringConvertible { var description: String }

    let loop: EventLoop
    private(set) var socket: UDPSocket!
    private var inbox: HandshakeInbox?
    private var srtp: SRTPContext!
    private(set) var srtpProfile: SRTPProfile = .aes128CMHMACSHA1_80
    private(set) var server: SocketAddress!
    private var consentCheck: [UInt8] = []
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)

    init(loop: EventLoop) { self.loop = loop }

    deinit { scratch.deallocate() }

    /// Offers (`offer` gets our fingerprint and port), lets `create` make the server's session and
    /// return its answer, then ICE, DTLS and SRTP keys against the media socket.
    func handshake(media: MediaTransportServer, index: Int, offer: (DTLSFingerprint, UInt16) -> String,
                   create: (String) async throws -> String) async throws {
        let port = media.localPort
        try await handshake(host: "127.0.0.1", index: index, exchange: { try await create(offer($0, $1)) },
                            remote: { _ in try SocketAddress.resolve(host: "127.0.0.1", port: port) })
    }

    /// The general form: binds `host`, lets `exchange` (given our fingerprint and port) trade
    /// descriptions either way round and return the remote one (an answer to our offer, or the
    /// offer we answered with `setup:active`), takes the remote address from it with `remote`, then
    /// one nominating ICE check, a DTLS client handshake and SRTP keys. ICE credentials and the
    /// fingerprint may be media- or session-level (RFC 8839 §5.4, RFC 8122 §5).
    func handshake(host: String, index: Int, exchange: (DTLSFingerprint, UInt16) async throws -> String,
                   remote: (SessionDescription) throws -> SocketAddress) async throws {
        let inbox = HandshakeInbox()
        self.inbox = inbox
        socket = try UDPSocket(host: host, port: 0, loop: loop, batchSize: 64) { [self] in receive($0) }
        let socket = self.socket!

        let certificate = try CertificateIdentity(commonName: "bench-client")
        let answer = try await exchange(certificate.fingerprint, UInt16(socket.localPort))
        let sdp = try SessionDescription(parsing: answer)
        guard let first = sdp.media.first, let ufrag = first.iceUfrag ?? sdp.iceUfrag, let pwd = first.icePwd ?? sdp.icePwd,
              let fp = first.fingerprints.first ?? sdp.fingerprints.first,
              let serverFingerprint = DTLSFingerprint(algorithm: .sha256, digest: fp.bytes) else {
            throw SetupFailed(description: "unusable remote description:\n\(answer)")
        }
        let serverAddress = try remote(sdp)
        server = serverAddress
        func send(_ bytes: [UInt8]) { socket.send([Datagram(address: serverAddress, bytes: bytes)]) }
        let check = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 7, low: UInt64(index)),
                                attributes: [.username("\(ufrag):cli\(index)"), .priority(0x6E00_1EFF),
                                             .iceControlling(1234), .useCandidate])
        consentCheck = try check.serialized(
            integrity: .sha1(key: Array(pwd.utf8), hmac: { HMAC.sha1(key: $0, message: $1) }), fingerprint: true)
        var answered = false
        for _ in 0..<30 where !answered {   // resent every 100 ms (RFC 8445 §14.3 paces them; a lost one is retried)
            send(consentCheck)
            answered = await inbox.next(.stun, timeout: .milliseconds(100)) != nil
        }
        guard answered else { throw SetupFailed(description: "no STUN response") }

        let dtls = try DTLSSession(role: .client, certificate: certificate, remoteFingerprint: serverFingerprint)
        for d in dtls.start() { send(d) }
        let deadline = ContinuousClock.now + .seconds(10)
        while dtls.state != .connected, ContinuousClock.now < deadline {
            if case .failed(let error) = dtls.state { throw SetupFailed(description: "DTLS failed: \(error)") }
            if let datagram = await inbox.next(.dtls, timeout: .milliseconds(200)) {
                for d in dtls.receive(datagram.bytes).datagrams { send(d) }
            } else {
                // The check again: an agent may have answered an early one before it had our
                // candidates (RFC 8445 §7.2.1) and not count it.
                send(consentCheck)
                for d in dtls.handleTimeout().datagrams { send(d) }
            }
        }
        guard dtls.state == .connected else { throw SetupFailed(description: "DTLS did not connect") }
        let srtp = try DTLSSRTPKeying.context(for: dtls)
        let profile = srtp.profile
        let handOver = UncheckedBox(srtp)
        await ForwardBench.onLoop(loop) { [self] in
            self.srtp = handOver.value
            srtpProfile = profile
            self.inbox = nil
        }
    }

    /// Datagrams after the handshake, on the loop (subclasses count or answer them).
    func media(_ datagrams: [Datagram]) {}

    func close() { socket.close() }

    func sendConsentCheck() { socket.send([Datagram(address: server, bytes: consentCheck)]) }

    /// Answer the remote agent's connectivity and keepalive checks (a full ICE agent such as
    /// Janus's sends them; Parley's lite server does not). Set before `handshake`.
    var answersChecks = false

    private func receive(_ datagrams: [Datagram]) {
        var datagrams = datagrams
        if answersChecks {
            datagrams.removeAll { MediaPacketClass.classify($0.bytes) == .stun && answerCheck($0) }
        }
        if let inbox { return inbox.push(datagrams) }
        media(datagrams)
    }

    /// A Binding success for a Binding request (RFC 8445 §7.3.1.1), signed with our password; true
    /// when `datagram` was a request.
    private func answerCheck(_ datagram: Datagram) -> Bool {
        guard let request = try? STUNMessage(parsing: datagram.bytes), request.type == .bindingRequest else { return false }
        let storage = datagram.address.rawStorage
        let ip = withUnsafeBytes(of: storage) { raw in STUNAddress.IP(bytes: raw[4..<8]) }
        guard datagram.address.family == AF_INET, let ip else { return true }
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID,
                                   attributes: [.xorMappedAddress(STUNAddress(ip: ip, port: UInt16(datagram.address.port)))])
        let integrity = STUNIntegrity.sha1(key: Array(Self.password.utf8), hmac: { HMAC.sha1(key: $0, message: $1) })
        if let bytes = try? response.serialized(integrity: integrity, fingerprint: true) {
            socket.send([Datagram(address: datagram.address, bytes: bytes)])
        }
        return true
    }

    /// The RTP packet in `datagram`, unprotected into `scratch`: its length, or nil.
    func unprotect(_ datagram: Datagram) -> Int? {
        let length = datagram.bytes.count
        guard length <= scratch.count else { return nil }
        datagram.bytes.withUnsafeBytes { scratch.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: length) }
        return try? srtp.unprotect(scratch, length: length)
    }

    /// The RTP packet in `scratch[0..<length]`, protected, as a datagram to the server.
    func protectScratch(length: Int) -> Datagram? {
        guard let protected = try? srtp.protect(scratch, length: length) else { return nil }
        return Datagram(address: server, bytes: Array(UnsafeRawBufferPointer(rebasing: scratch[0..<protected])))
    }

    // MARK: - Offers

    static let password = "clientpassword0123456789"

    static func sessionLines(index: Int, bundle mids: [String] = ["0"], host: String = "127.0.0.1") -> String {
        "v=0\r\no=- \(index + 1) 2 IN IP4 \(host)\r\ns=-\r\nt=0 0\r\na=group:BUNDLE \(mids.joined(separator: " "))\r\n"
    }

    /// One m-section of a bench offer; the first carries the transport and the candidate.
    static func section(_ kind: String, mid: String, port: UInt16, index: Int, fingerprint: DTLSFingerprint,
                        direction: String, rtpmap: String, ssrc: UInt32?, first: Bool, host: String = "127.0.0.1",
                        setup: String = "actpass") -> String {
        let pt = rtpmap.split(separator: " ")[0]
        var lines = ["m=\(kind) \(port) UDP/TLS/RTP/SAVPF \(pt)", "c=IN IP4 \(host)", "a=mid:\(mid)", "a=\(direction)",
                     "a=ice-ufrag:cli\(index)", "a=ice-pwd:\(password)", "a=fingerprint:\(fingerprint.sdpValue)",
                     "a=setup:\(setup)", "a=rtcp-mux", "a=rtpmap:\(rtpmap)"]
        if let ssrc { lines.append("a=ssrc:\(ssrc) cname:bench") }
        if first { lines += ["a=candidate:1 1 udp 2130706431 \(host) \(port) typ host", "a=end-of-candidates"] }
        return lines.map { $0 + "\r\n" }.joined()
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

/// Hands a loop-confined value to the loop thread once (the sender stops using it).
struct UncheckedBox<T>: @unchecked Sendable { let value: T; init(_ value: T) { self.value = value } }
