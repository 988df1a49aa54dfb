import COpenSSL

/// One TLS connection over two memory BIOs: the owner feeds ciphertext from the socket in, and
/// drains ciphertext for the socket out. No I/O happens here (the aiortc DTLS pattern).
///
/// Not thread-safe: a session belongs to the one event-loop thread that owns its socket.
public final class TLSSession {
    /// What one read produced.
    public enum ReadStatus: Sendable, Equatable {
        /// Plaintext (maybe none) was appended; more may come later.
        case open
        /// The peer sent close_notify.
        case closed
    }

    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer
    private let context: TLSContext
    /// Reused decrypt buffer, so steady-state reads do not allocate.
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)
    public private(set) var isHandshakeComplete = false

    /// A session for a server (accept) or client (connect) context. Clients pass the host name for
    /// SNI and certificate name checks; an IP literal is checked against IP subjectAltNames.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        guard let ssl = SSL_new(context.raw) else { throw TLSError("SSL_new: \(openSSLErrors())") }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSError("BIO_new failed")
        }
        // An empty input BIO means "try again later", not EOF.
        _ = parley_BIO_set_mem_eof_return(input, -1)
        _ = parley_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)
        self.ssl = ssl
        self.input = input
        self.output = output
        self.context = context
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let name = serverName {
                if Self.isIPLiteral(name) {
                    if context.verifyPeer { _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) }
                } else {
                    _ = parley_SSL_set_tlsext_host_name(ssl, name)
                    if context.verifyPeer { _ = SSL_set1_host(ssl, name) }
                }
            }
        }
    }

    deinit { SSL_free(ssl) }  // frees both BIOs too

    /// Hands ciphertext received from the socket to OpenSSL.
    public func feed(_ ciphertext: UnsafeRawBufferPointer) {
        guard let base = ciphertext.baseAddress, !ciphertext.isEmpty else { return }
        _ = BIO_write(input, base, Int32(ciphertext.count))
    }

    /// Advances the handshake; true once it is complete. Drain ciphertext afterwards.
    public func handshake() throws(TLSError) -> Bool {
        if isHandshakeComplete { return true }
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            isHandshakeComplete = true
            return true
        }
        let err = SSL_get_error(ssl, rc)
        if err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE { return false }
        var detail = openSSLErrors()
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK, let text = X509_verify_cert_error_string(verify) {
            detail += " (verify: \(String(cString: text)))"
        }
        throw TLSError("handshake failed: \(detail)")
    }

    /// Decrypts everything available, appending plaintext to `plaintext`.
    public func read(into plaintext: inout [UInt8]) throws(TLSError) -> ReadStatus {
        while true {
            let n = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                plaintext.append(contentsOf: scratch[0..<Int(n)])
                continue
            }
            let err = SSL_get_error(ssl, n)
            switch err {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .open
            case SSL_ERROR_ZERO_RETURN: return .closed
            default: throw TLSError("read failed: \(openSSLErrors())")
            }
        }
    }

    /// Encrypts `plaintext`; the memory BIO always accepts it all. Drain ciphertext afterwards.
    public func write(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) {
        var offset = 0
        while offset < plaintext.count {
            let n = SSL_write(ssl, plaintext.baseAddress! + offset, Int32(min(plaintext.count - offset, 1 << 30)))
            guard n > 0 else { throw TLSError("write failed: \(openSSLErrors())") }
            offset += Int(n)
        }
    }

    /// Moves pending ciphertext (handshake records, application data, alerts) into `out`.
    public func drainCiphertext(into out: inout [UInt8]) {
        let pending = parley_BIO_ctrl_pending(output)
        guard pending > 0 else { return }
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: Int(pending)))
        let n = out.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress! + start, Int32(pending)) }
        out.removeLast(Int(pending) - Int(max(n, 0)))
    }

    /// The application protocol the handshake selected with ALPN (RFC 7301), e.g. `h2`; nil
    /// before the handshake completes or when ALPN was not negotiated.
    public var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Queues a close_notify alert (RFC 8446 §6.1). Drain ciphertext afterwards.
    public func shutdown() {
        if isHandshakeComplete { _ = SSL_shutdown(ssl) }
    }

    static func isIPLiteral(_ name: String) -> Bool {
        name.contains(":") || (!name.isEmpty && name.allSatisfy { $0 == "." || $0.isNumber })
    }
}
