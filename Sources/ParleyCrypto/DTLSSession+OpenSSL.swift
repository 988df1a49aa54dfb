import COpenSSL
import ParleyCore

extension DTLSSession {
    /// A per-session `SSL_CTX`: DTLS 1.2 only, the local identity, `use_srtp`, and peer verification
    /// by fingerprint.
    static func makeContext(certificate: CertificateIdentity,
                            srtpProtectionProfiles: [UInt16]) throws(ParleyError) -> OpaquePointer {
        guard let ctx = SSL_CTX_new(DTLS_method()) else { throw failure("SSL_CTX_new: \(openSSLErrors())") }
        // DTLS 1.0 is deprecated (RFC 8996); WebRTC requires DTLS 1.2 (RFC 8827 §6.5).
        guard parley_SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) == 1,
              SSL_CTX_use_certificate(ctx, certificate.certificate) == 1,
              SSL_CTX_use_PrivateKey(ctx, certificate.privateKey) == 1,
              SSL_CTX_check_private_key(ctx) == 1,
              SSL_CTX_set_cipher_list(ctx, "HIGH:!CAMELLIA:!aNULL:!PSK:!SRP") == 1 else {
            SSL_CTX_free(ctx)
            throw failure("DTLS context setup failed: \(openSSLErrors())")
        }
        if !srtpProtectionProfiles.isEmpty {
            // RFC 5764 §4.1.1 use_srtp; note this OpenSSL call returns 0 on success.
            var known: [String] = []
            for id in srtpProtectionProfiles {
                guard let name = openSSLName(ofSRTPProtectionProfile: id) else {
                    SSL_CTX_free(ctx)
                    throw failure("use_srtp: unknown DTLS-SRTP protection profile \(id)")
                }
                known.append(name)
            }
            let names = known.joined(separator: ":")
            guard SSL_CTX_set_tlsext_use_srtp(ctx, names) == 0 else {
                SSL_CTX_free(ctx)
                throw failure("use_srtp \(names) rejected: \(openSSLErrors())")
            }
        }
        // Both sides present certificates (RFC 5763 §5); the callback pins them to the SDP.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, DTLSCallbacks.verify)
        return ctx
    }
}

extension DTLSSession {
    /// What WebRTC offers, most preferred first: SRTP_AEAD_AES_128_GCM (0x0007, RFC 7714 §14.2),
    /// then SRTP_AES128_CM_HMAC_SHA1_80 (0x0001, RFC 5764 §4.1.2).
    public static let defaultSRTPProtectionProfiles: [UInt16] = [0x0007, 0x0001]

    /// OpenSSL's name for a DTLS-SRTP protection profile (IANA "DTLS-SRTP Protection Profiles",
    /// those `SSL_CTX_set_tlsext_use_srtp` knows), or nil.
    static func openSSLName(ofSRTPProtectionProfile id: UInt16) -> String? {
        switch id {
        case 0x0001: "SRTP_AES128_CM_SHA1_80"
        case 0x0002: "SRTP_AES128_CM_SHA1_32"
        case 0x0007: "SRTP_AEAD_AES_128_GCM"
        case 0x0008: "SRTP_AEAD_AES_256_GCM"
        default: nil
        }
    }
}

/// C callbacks. Each finds its `DTLSSession` through the unretained pointer stored in the SSL
/// (ex_data slot 0) or in the write BIO, and runs synchronously on the session's thread.
enum DTLSCallbacks {
    /// Certificate verification (RFC 8122 §5): a self-signed chain is fine; only the leaf
    /// (depth 0) matters, and it must match a remote fingerprint whatever OpenSSL thought of it.
    static let verify: @convention(c) (Int32, OpaquePointer?) -> Int32 = { _, store in
        guard let store,
              let rawSSL = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
              let session = DTLSCallbacks.session(of: OpaquePointer(rawSSL)) else { return 0 }
        guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
        guard let leaf = X509_STORE_CTX_get_current_cert(store) else { return 0 }
        if session.matchesRemoteFingerprint(CertificateIdentity.der(of: leaf)) {
            X509_STORE_CTX_set_error(store, X509_V_OK)
            return 1
        }
        session.fingerprintMismatch = true
        return 0
    }

    /// Retransmission timer duration in microseconds (`DTLS_set_timer_cb`): the session's initial
    /// value, then doubled per retransmission up to 60 s (RFC 6347 §4.2.4.1).
    static let timer: @convention(c) (OpaquePointer?, UInt32) -> UInt32 = { ssl, previous in
        guard previous > 0 else { return session(of: ssl)?.initialTimeoutMicros ?? 1_000_000 }
        return min(previous &* 2, 60_000_000)
    }

    static func session(of ssl: OpaquePointer?) -> DTLSSession? {
        guard let ssl, let raw = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<DTLSSession>.fromOpaque(raw).takeUnretainedValue()
    }
}

/// A write-only BIO that turns each write into one datagram in the session's outbox.
///
/// OpenSSL buffers a flight and flushes it one datagram (≤ MTU) per write, so keeping writes
/// apart preserves datagram boundaries, which a memory BIO would merge.
enum DTLSOutputBIO {
    /// Immutable after creation and shared by all sessions (`BIO_get_new_index` is a scarce,
    /// process-wide counter).
    private struct Method: @unchecked Sendable { let raw: OpaquePointer? }

    private static let method = Method(raw: {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "parley DTLS datagrams") else {
            return nil
        }
        _ = BIO_meth_set_write(method, write)
        _ = BIO_meth_set_ctrl(method, control)
        _ = BIO_meth_set_create(method, { bio in
            BIO_set_init(bio, 1)
            return 1
        })
        return method
    }())

    /// A new BIO of this kind; its data pointer must be set to the owning session.
    static func make() -> OpaquePointer? {
        guard let raw = method.raw else { return nil }
        return BIO_new(raw)
    }

    private static let write: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
        bio, data, length in
        guard let bio, let data, length > 0, let raw = BIO_get_data(bio) else { return length == 0 ? 0 : -1 }
        let session = Unmanaged<DTLSSession>.fromOpaque(raw).takeUnretainedValue()
        session.outbox.append(Array(UnsafeRawBufferPointer(start: data, count: Int(length))))
        return length
    }

    /// Flushes succeed; nothing is pending; MTU queries are off (`SSL_OP_NO_QUERY_MTU`), so the
    /// datagram controls all answer 0.
    private static let control: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = {
        _, command, _, _ in
        command == BIO_CTRL_FLUSH ? 1 : 0
    }
}
