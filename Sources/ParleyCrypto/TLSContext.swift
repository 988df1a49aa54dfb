import COpenSSL

/// An OpenSSL `SSL_CTX`: certificates, verification and protocol settings shared by sessions.
///
/// `@unchecked Sendable`: the context is fully configured in `init` and never mutated afterwards;
/// OpenSSL documents a configured `SSL_CTX` as safe to share between threads creating sessions.
public final class TLSContext: @unchecked Sendable {
    let raw: OpaquePointer
    public let isServer: Bool
    public let verifyPeer: Bool
    /// Servers with ALPN: a 2-octet length then the protocol list in wire format, read by the
    /// selection callback for the context's lifetime.
    private var alpnServerList: UnsafeMutableBufferPointer<UInt8>?

    /// Builds a server or client context. Servers load `certificatePath` and `privateKeyPath`.
    public init(configuration: TLSConfiguration, isServer: Bool) throws(TLSError) {
        guard let ctx = SSL_CTX_new(isServer ? TLS_server_method() : TLS_client_method()) else {
            throw TLSError("SSL_CTX_new: \(openSSLErrors())")
        }
        raw = ctx
        self.isServer = isServer
        verifyPeer = !isServer && configuration.verifyPeer
        _ = parley_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)
        _ = parley_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        if isServer {
            guard let cert = configuration.certificatePath, let key = configuration.privateKeyPath else {
                throw TLSError("a server needs certificatePath and privateKeyPath")
            }
            guard SSL_CTX_use_certificate_chain_file(ctx, cert) == 1 else {
                throw TLSError("loading certificate \(cert): \(openSSLErrors())")
            }
            guard SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1 else {
                throw TLSError("loading private key \(key): \(openSSLErrors())")
            }
            guard SSL_CTX_check_private_key(ctx) == 1 else {
                throw TLSError("private key does not match certificate: \(openSSLErrors())")
            }
        } else if verifyPeer {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            let ok = configuration.trustRootsPath.map { SSL_CTX_load_verify_locations(ctx, $0, nil) }
                ?? SSL_CTX_set_default_verify_paths(ctx)
            guard ok == 1 else { throw TLSError("loading trust roots: \(openSSLErrors())") }
        }
        try configureALPN(configuration.alpnWireFormat)
    }

    deinit {
        SSL_CTX_free(raw)
        alpnServerList?.deallocate()
    }

    /// RFC 7301: clients offer the list; servers select the first of theirs the client offered and
    /// refuse the handshake (no_application_protocol) when none matches. Nothing when the list is empty.
    private func configureALPN(_ wire: [UInt8]) throws(TLSError) {
        guard !wire.isEmpty else { return }
        if !isServer {
            // SSL_CTX_set_alpn_protos returns 0 on success.
            guard SSL_CTX_set_alpn_protos(raw, wire, UInt32(wire.count)) == 0 else {
                throw TLSError("setting ALPN protocols: \(openSSLErrors())")
            }
            return
        }
        let list = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: wire.count + 2)
        list[0] = UInt8(truncatingIfNeeded: wire.count >> 8)
        list[1] = UInt8(truncatingIfNeeded: wire.count)
        for (i, byte) in wire.enumerated() { list[i + 2] = byte }
        alpnServerList = list
        SSL_CTX_set_alpn_select_cb(raw, alpnSelect, UnsafeMutableRawPointer(list.baseAddress))
    }
}

/// The server's ALPN selection callback; `arg` is the context's `alpnServerList`.
private let alpnSelect: SSL_CTX_alpn_select_cb_func = { _, out, outLength, offered, offeredLength, arg in
    guard let out, let outLength, let offered, let arg else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    let list = arg.assumingMemoryBound(to: UInt8.self)
    let length = UInt32(list[0]) << 8 | UInt32(list[1])
    var selected: UnsafeMutablePointer<UInt8>?
    var selectedLength: UInt8 = 0
    guard SSL_select_next_proto(&selected, &selectedLength, list + 2, length, offered, offeredLength) == OPENSSL_NPN_NEGOTIATED,
          let selected else {
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }
    out.pointee = UnsafePointer(selected)
    outLength.pointee = selectedLength
    return SSL_TLSEXT_ERR_OK
}

/// Drains OpenSSL's thread-local error queue into one line.
func openSSLErrors() -> String {
    var messages: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return messages.isEmpty ? "unknown error" : messages.joined(separator: "; ")
}
