import COpenSSL
import ParleyCore

/// One DTLS 1.2 association (RFC 6347) for DTLS-SRTP (RFC 5764) over OpenSSL, with no sockets and
/// no clock of its own: the owner feeds each received datagram to `receive(_:)`, sends the
/// datagrams every call returns, and arms one timer from `nextTimeout` (the aiortc
/// `rtcdtlstransport.py` pattern; RFC 7983 demultiplexing happens before this type).
///
/// The peer is authenticated by pinning its self-signed certificate to the SDP `a=fingerprint`
/// (RFC 8122 §5, RFC 8827 §6.5): the verify callback accepts the certificate only if its digest
/// matches; anything else aborts the handshake with `ParleyError(.mediaDtlsTransportFailed)`.
///
/// Not thread-safe: a session belongs to one thread (or one actor) at a time, like `TLSSession`.
/// OpenSSL callbacks run synchronously inside the calls below.
public final class DTLSSession {
    /// Default datagram budget: fits a 1280-byte IPv6 minimum MTU after IP/UDP (and TURN) overhead.
    public static let defaultMTU = 1200

    public let role: DTLSRole
    /// The largest datagram this session writes (`SSL_set_mtu`; path MTU discovery is off).
    public let mtu: Int
    public private(set) var state: DTLSState = .new
    /// The `use_srtp` protection profile the handshake settled on (RFC 5764 §4.1.1), by its IANA
    /// value ("DTLS-SRTP Protection Profiles"), once connected. The SRTP layer owns what a profile
    /// means (`SRTPProfile` in ParleySRTP) and derives its keys through `exportKeyingMaterial`
    /// (RFC 5764 §4.2), so this target never depends on it, nor it on this one.
    public private(set) var srtpProtectionProfile: UInt16?
    /// The peer's certificate in DER, once connected.
    public private(set) var remoteCertificateDER: [UInt8]?

    let remoteFingerprints: [DTLSFingerprint]
    /// First retransmission timeout in microseconds (RFC 6347 §4.2.4.1 suggests one second).
    let initialTimeoutMicros: UInt32
    /// Set by the verify callback when the peer certificate does not match.
    var fingerprintMismatch = false
    /// Datagrams written by OpenSSL since the last call returned (see the write BIO).
    var outbox: [[UInt8]] = []

    private let context: OpaquePointer  // SSL_CTX *
    let ssl: OpaquePointer              // SSL *
    private let input: OpaquePointer    // memory BIO holding the datagram being processed
    private var readBuffer: [UInt8] = []

    /// A session pinned to one remote fingerprint; see `init(role:certificate:remoteFingerprints:…)`.
    public convenience init(role: DTLSRole, certificate: CertificateIdentity, remoteFingerprint: DTLSFingerprint,
                            srtpProtectionProfiles: [UInt16] = DTLSSession.defaultSRTPProtectionProfiles,
                            mtu: Int = DTLSSession.defaultMTU,
                            initialRetransmissionTimeout: Duration = .seconds(1)) throws(ParleyError) {
        try self.init(role: role, certificate: certificate, remoteFingerprints: [remoteFingerprint],
                      srtpProtectionProfiles: srtpProtectionProfiles, mtu: mtu, initialRetransmissionTimeout: initialRetransmissionTimeout)
    }

    /// Creates a session.
    /// - Parameters:
    ///   - role: `.client` for `a=setup:active`, `.server` for `a=setup:passive`.
    ///   - certificate: the local identity whose fingerprint went into the local SDP.
    ///   - remoteFingerprints: the peer's `a=fingerprint` values; the certificate must match one
    ///     (RFC 8122 §5 allows several).
    ///   - srtpProtectionProfiles: `use_srtp` protection profiles (IANA values) in preference order
    ///     (RFC 5764 §4.1.1); empty disables it. Unknown values throw.
    ///   - mtu: largest datagram to emit.
    ///   - initialRetransmissionTimeout: first flight timer; doubled per retry up to 60 s
    ///     (RFC 6347 §4.2.4.1).
    public init(role: DTLSRole, certificate: CertificateIdentity, remoteFingerprints: [DTLSFingerprint],
                srtpProtectionProfiles: [UInt16] = DTLSSession.defaultSRTPProtectionProfiles,
                mtu: Int = DTLSSession.defaultMTU,
                initialRetransmissionTimeout: Duration = .seconds(1)) throws(ParleyError) {
        self.role = role
        self.mtu = mtu
        self.remoteFingerprints = remoteFingerprints
        let (seconds, attoseconds) = initialRetransmissionTimeout.components
        let micros = min(max(seconds, 0), 60) * 1_000_000 + attoseconds / 1_000_000_000_000
        initialTimeoutMicros = UInt32(clamping: min(max(1, micros), 60_000_000))
        ERR_clear_error()
        let context = try Self.makeContext(certificate: certificate, srtpProtectionProfiles: srtpProtectionProfiles)
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw Self.failure("SSL_new: \(openSSLErrors())")
        }
        guard let input = BIO_new(BIO_s_mem()), let output = DTLSOutputBIO.make() else {
            SSL_free(ssl)
            SSL_CTX_free(context)
            throw Self.failure("BIO_new failed")
        }
        _ = parley_BIO_set_mem_eof_return(input, -1)  // empty means "would block", not EOF
        SSL_set_bio(ssl, input, output)
        self.context = context
        self.ssl = ssl
        self.input = input
        parley_SSL_set_no_query_mtu(ssl)
        guard parley_SSL_set_mtu(ssl, mtu) > 0 else { throw Self.failure("MTU \(mtu) is too small") }
        DTLS_set_timer_cb(ssl, DTLSCallbacks.timer)
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
        // Callbacks find the session through these unretained pointers; the session owns `ssl`.
        let me = Unmanaged.passUnretained(self).toOpaque()
        BIO_set_data(output, me)
        _ = SSL_set_ex_data(ssl, 0, me)
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs
        SSL_CTX_free(context)
    }

    /// Begins the handshake. A client returns its ClientHello flight; a server returns nothing and
    /// waits for `receive(_:)`.
    public func start() -> [[UInt8]] {
        guard case .new = state else { return [] }
        return advance().datagrams
    }

    /// Processes one received DTLS datagram (first byte 20...63, RFC 7983 §7). Garbage and replays
    /// are dropped silently (RFC 6347 §4.1.2.7); a fatal alert or a failed peer check fails the
    /// session.
    public func receive(_ datagram: [UInt8]) -> DTLSOutput {
        datagram.withUnsafeBytes { receive(bytes: $0) }
    }

    /// `receive(_:)` for a datagram in a caller-owned buffer.
    public func receive(bytes datagram: UnsafeRawBufferPointer) -> DTLSOutput {
        switch state {
        case .failed, .closed: return DTLSOutput()
        case .new, .handshaking, .connected: break
        }
        _ = parley_BIO_reset(input)  // one datagram at a time keeps record boundaries intact
        if let base = datagram.baseAddress, !datagram.isEmpty, datagram.count <= Int(Int32.max) {
            _ = BIO_write(input, base, Int32(datagram.count))
        }
        return advance()
    }

    /// Time until `handleTimeout()` should run, or nil when no flight awaits an answer
    /// (`DTLSv1_get_timeout`). Read it after every call and re-arm a single timer.
    ///
    /// OpenSSL 3.0 keeps the retransmission deadline on its own clock and offers no hook to replace
    /// it, so the value is relative and an early `handleTimeout()` does nothing.
    public var nextTimeout: Duration? {
        switch state {
        case .failed, .closed, .new: return nil
        case .handshaking, .connected: break
        }
        var left = timeval()
        guard parley_DTLS_get_timeout(ssl, &left) == 1 else { return nil }
        return .seconds(Int64(left.tv_sec)) + .microseconds(Int64(left.tv_usec))
    }

    /// Retransmits the last flight if its timer expired (`DTLSv1_handle_timeout`,
    /// RFC 6347 §4.2.4). After too many attempts the session fails.
    public func handleTimeout() -> DTLSOutput {
        switch state {
        case .new, .failed, .closed: return DTLSOutput()
        case .handshaking, .connected: break
        }
        ERR_clear_error()
        if parley_DTLS_handle_timeout(ssl) < 0 {
            fail("handshake timed out: \(openSSLErrors())")
            return DTLSOutput(datagrams: takeOutbox(), stateChange: state)
        }
        return DTLSOutput(datagrams: takeOutbox())
    }

    /// Sends close_notify (RFC 5246 §7.2.1) if connected, and closes the session.
    public func close() -> [[UInt8]] {
        switch state {
        case .connected:
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
        case .new, .handshaking: break
        case .failed, .closed: return []
        }
        state = .closed
        Log.debug(.webrtc, "DTLS \(role) closed locally")
        return takeOutbox()
    }

    // MARK: - Driving OpenSSL

    /// Runs the handshake or reads records, then collects what OpenSSL wrote.
    private func advance() -> DTLSOutput {
        let before = state
        var output = DTLSOutput()
        ERR_clear_error()
        if case .new = state { state = .handshaking }
        if case .handshaking = state {
            let rc = SSL_do_handshake(ssl)
            if rc == 1 {
                finishHandshake()
            } else {
                let error = SSL_get_error(ssl, rc)
                if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                    fail(fingerprintMismatch ? "fingerprint mismatch" : "handshake failed: \(openSSLErrors())")
                }
            }
        }
        if case .connected = state { readRecords(into: &output) }
        _ = parley_BIO_reset(input)
        output.datagrams = takeOutbox()
        if state != before { output.stateChange = state }
        return output
    }

    /// Checks the peer once more and notes the negotiated `use_srtp` profile.
    private func finishHandshake() {
        guard let peer = SSL_get1_peer_certificate(ssl) else { return fail("peer sent no certificate") }
        let der = CertificateIdentity.der(of: peer)
        X509_free(peer)
        guard matchesRemoteFingerprint(der) else { return fail("fingerprint mismatch") }
        remoteCertificateDER = der
        if let selected = SSL_get_selected_srtp_profile(ssl) {
            srtpProtectionProfile = UInt16(truncatingIfNeeded: selected.pointee.id)
        }
        state = .connected
        Log.debug(.webrtc, "DTLS \(role) connected, SRTP profile \(srtpProtectionProfile.map { "0x" + String($0, radix: 16) } ?? "none")")
    }

    /// Decrypts every complete record in the current datagram.
    private func readRecords(into output: inout DTLSOutput) {
        if readBuffer.isEmpty { readBuffer = [UInt8](repeating: 0, count: 16 * 1024 + 256) }
        while true {
            let n = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                output.applicationData.append(Array(readBuffer[0..<Int(n)]))
                continue
            }
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return
            case SSL_ERROR_ZERO_RETURN:
                _ = SSL_shutdown(ssl)  // answer the peer's close_notify
                state = .closed
                Log.debug(.webrtc, "DTLS \(role) closed by peer")
                return
            default:
                return fail("read failed: \(openSSLErrors())")
            }
        }
    }

    /// The verify callback's check: the leaf certificate must match one of the remote fingerprints.
    func matchesRemoteFingerprint(_ der: [UInt8]) -> Bool {
        var matched = false
        for fingerprint in remoteFingerprints where fingerprint.matches(certificateDER: der) { matched = true }
        return matched
    }

    private func fail(_ reason: String) {
        Log.debug(.webrtc, "DTLS \(role) failed: \(reason)")
        state = .failed(ParleyError(.mediaDtlsTransportFailed, reason: reason))
    }

    func takeOutbox() -> [[UInt8]] {
        defer { outbox.removeAll() }
        return outbox
    }

    static func failure(_ reason: String) -> ParleyError {
        ParleyError(.mediaDtlsTransportFailed, reason: reason)
    }
}
