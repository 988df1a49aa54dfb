import COpenSSL
import ParleyCore

/// A DTLS identity: an ECDSA P-256 key pair and a self-signed X.509 v3 certificate, kept in memory.
///
/// WebRTC endpoints authenticate DTLS with self-signed certificates whose fingerprint travels in
/// the SDP `a=fingerprint` attribute (RFC 8827 §6.5, RFC 8122 §5), so no CA is involved. One
/// identity may serve every session of a process, as browsers do.
///
/// `@unchecked Sendable`: the certificate and key are built in `init` and never mutated; OpenSSL
/// reference-counts them atomically, and sessions only take references (`SSL_CTX_use_certificate`).
public final class CertificateIdentity: @unchecked Sendable {
    let certificate: OpaquePointer  // X509 *
    let privateKey: OpaquePointer   // EVP_PKEY *

    /// SHA-256 fingerprint of the certificate, for the local `a=fingerprint` (RFC 8122 §5).
    public let fingerprint: DTLSFingerprint
    /// The certificate in DER.
    public let derCertificate: [UInt8]

    /// Generates a fresh P-256 key and a self-signed certificate (X.509 v3, RFC 5280 §4.1) with
    /// subject and issuer `CN=<commonName>`, a random 64-bit positive serial, and a validity from a
    /// day ago (clock skew) until `validityDays` from now. Signed with ECDSA-SHA256.
    public init(commonName: String = "parley", validityDays: Int = 30) throws(ParleyError) {
        guard let key = parley_EVP_EC_gen_P256() else {
            throw Self.failure("EC P-256 key generation failed")
        }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw Self.failure("X509_new failed")
        }
        do {
            try Self.fill(x509, key: key, commonName: commonName, validityDays: validityDays)
        } catch {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw error
        }
        certificate = x509
        privateKey = key
        let der = Self.der(of: x509)
        derCertificate = der
        fingerprint = DTLSFingerprint(algorithm: .sha256, certificateDER: der)
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// The certificate as PEM text (`-----BEGIN CERTIFICATE-----`), e.g. for logs or `openssl x509`.
    public var pemCertificate: String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { return "" }
        var pointer: UnsafeMutablePointer<CChar>?
        let length = parley_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private static func fill(_ x509: OpaquePointer, key: OpaquePointer, commonName: String,
                             validityDays: Int) throws(ParleyError) {
        // Version field value 2 means v3 (RFC 5280 §4.1.2.1).
        guard X509_set_version(x509, 2) == 1 else { throw failure("X509_set_version failed") }
        // RFC 5280 §4.1.2.2: a positive integer of at most 20 octets; 8 random bytes, top bit clear.
        var serial = SecureRandom.bytes(8)
        serial[0] &= 0x7F
        serial[0] |= 0x01 << 6  // never zero, never a short encoding
        guard let bn = BN_bin2bn(serial, Int32(serial.count), nil) else { throw failure("BN_bin2bn failed") }
        defer { BN_free(bn) }
        guard BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x509)) != nil else {
            throw failure("setting the serial number failed")
        }
        let day = 24 * 60 * 60
        guard X509_gmtime_adj(X509_getm_notBefore(x509), -day) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), max(1, validityDays) * day) != nil else {
            throw failure("setting the validity failed")
        }
        guard let name = X509_get_subject_name(x509),
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(x509, name) == 1 else {
            throw failure("setting the subject name failed")
        }
        guard X509_set_pubkey(x509, key) == 1 else { throw failure("X509_set_pubkey failed") }
        guard X509_sign(x509, key, EVP_sha256()) > 0 else {
            throw failure("X509_sign failed: \(openSSLErrors())")
        }
    }

    static func der(of x509: OpaquePointer) -> [UInt8] {
        let length = i2d_X509(x509, nil)
        guard length > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_X509(x509, &cursor)
        }
        return out
    }

    private static func failure(_ reason: String) -> ParleyError {
        ParleyError(.mediaDtlsTransportFailed, reason: "certificate: \(reason)")
    }
}
