import COpenSSL

/// An OpenSSL `SSL_CTX`: certificates, verification and protocol settings shared by sessions.
///
/// `@unchecked Sendable`: the context is fully configured in `init` and never mutated afterwards;
/// OpenSSL documents a configured `SSL_CTX` as safe to share between threads creating sessions.
public final class TLSContext: @unchecked Sendable {
    let raw: OpaquePointer
    public let isServer: Bool
    public let verifyPeer: Bool

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
    }

    deinit { SSL_CTX_free(raw) }
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
