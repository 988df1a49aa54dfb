import COpenSSL

/// A failure loading a key or computing an ECDSA signature, with OpenSSL's reason. Never contains key material.
public struct ECDSAError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "ECDSA: \(message)" }
}

/// An ECDSA P-256 private key for ES256 (RFC 7518 §3.4), e.g. an Apple `AuthKey_XXXXXXXXXX.p8`.
///
/// Signatures are JOSE-style: the 32-octet big-endian `r` then `s` (64 octets), not DER.
/// `@unchecked Sendable`: the key is loaded in `init` and never mutated; each operation uses its
/// own `EVP_PKEY_CTX`, which OpenSSL allows concurrently on a shared read-only `EVP_PKEY`.
public final class P256SigningKey: @unchecked Sendable, CustomStringConvertible {
    let key: OpaquePointer  // EVP_PKEY *

    init(owning key: OpaquePointer) { self.key = key }

    deinit { EVP_PKEY_free(key) }

    /// Loads an unencrypted PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, as in Apple's .p8 files)
    /// or SEC 1 (`BEGIN EC PRIVATE KEY`). Anything but a P-256 key is rejected.
    public convenience init(pem: String) throws(ECDSAError) {
        let key = try Self.withMemoryBIO(pem) { bio in PEM_read_bio_PrivateKey(bio, nil, noPassword, nil) }
        guard let key else { throw ECDSAError("not a PEM private key: \(openSSLErrors())") }
        do {
            try P256VerifyingKey.requireP256(key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.init(owning: key)
    }

    /// Loads a PEM private key file (see `init(pem:)`).
    public convenience init(pemFile path: String) throws(ECDSAError) {
        try self.init(pem: try readTextFile(path))
    }

    /// A fresh random P-256 key (for tests and tools).
    public static func generate() throws(ECDSAError) -> P256SigningKey {
        guard let key = parley_EVP_EC_gen_P256() else { throw ECDSAError("P-256 key generation failed: \(openSSLErrors())") }
        return P256SigningKey(owning: key)
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), the format of Apple's .p8 files.
    public var pkcs8PEM: String {
        pemText { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
    }

    /// The public half.
    public var verifyingKey: P256VerifyingKey {
        // Round-trips through SubjectPublicKeyInfo DER, so the public key owns no private material.
        let length = i2d_PUBKEY(key, nil)
        var der = [UInt8](repeating: 0, count: Int(max(length, 0)))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_PUBKEY(key, &cursor)
        }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        // i2d/d2i of a key OpenSSL just produced cannot fail short of memory exhaustion.
        return P256VerifyingKey(owning: parsed!)
    }

    /// The ES256 signature of a SHA-256 `digest` (32 octets): `r || s`, 64 octets (RFC 7518 §3.4).
    public func signature(forDigest digest: some Collection<UInt8>) throws(ECDSAError) -> [UInt8] {
        let digest = Array(digest)
        guard digest.count == 32 else { throw ECDSAError("a SHA-256 digest has 32 octets, not \(digest.count)") }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { throw ECDSAError("EVP_PKEY_CTX_new: \(openSSLErrors())") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_sign_init(ctx) == 1, EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 else {
            throw ECDSAError("EVP_PKEY_sign_init: \(openSSLErrors())")
        }
        var length = 0
        guard EVP_PKEY_sign(ctx, nil, &length, digest, digest.count) == 1 else {
            throw ECDSAError("EVP_PKEY_sign: \(openSSLErrors())")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(ctx, &der, &length, digest, digest.count) == 1 else {
            throw ECDSAError("EVP_PKEY_sign: \(openSSLErrors())")
        }
        return try Self.rawSignature(fromDER: Array(der.prefix(length)))
    }

    /// The ES256 signature of `message` (hashed with SHA-256 first).
    public func signature(for message: some Collection<UInt8>) throws(ECDSAError) -> [UInt8] {
        try signature(forDigest: Digest.sha256(message))
    }

    public var description: String { "P256SigningKey(<private>)" }

    /// DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3) to fixed-width `r || s`.
    static func rawSignature(fromDER der: [UInt8]) throws(ECDSAError) -> [UInt8] {
        let sig: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let sig else { throw ECDSAError("OpenSSL returned an unparsable signature") }
        defer { ECDSA_SIG_free(sig) }
        var r: OpaquePointer?, s: OpaquePointer?
        ECDSA_SIG_get0(sig, &r, &s)
        var out = [UInt8](repeating: 0, count: 64)
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw ECDSAError("signature values do not fit 32 octets") }
        return out
    }

    static func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer) -> T) throws(ECDSAError) -> T {
        let bytes = Array(text.utf8)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw ECDSAError("BIO_new_mem_buf failed")
        }
        defer { BIO_free(bio) }
        return body(bio)
    }
}

/// An ECDSA P-256 public key for checking ES256 signatures.
/// `@unchecked Sendable` for the same reason as `P256SigningKey`.
public final class P256VerifyingKey: @unchecked Sendable {
    let key: OpaquePointer  // EVP_PKEY *

    init(owning key: OpaquePointer) { self.key = key }

    deinit { EVP_PKEY_free(key) }

    /// Loads a PEM SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`); anything but P-256 is rejected.
    public convenience init(pem: String) throws(ECDSAError) {
        let key = try P256SigningKey.withMemoryBIO(pem) { bio in PEM_read_bio_PUBKEY(bio, nil, noPassword, nil) }
        guard let key else { throw ECDSAError("not a PEM public key: \(openSSLErrors())") }
        do {
            try Self.requireP256(key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        self.init(owning: key)
    }

    /// The key as PEM SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`).
    public var pem: String { pemText { bio in PEM_write_bio_PUBKEY(bio, key) } }

    /// Whether `signature` (64 octets, `r || s`) is a valid ES256 signature of the SHA-256 `digest`.
    public func isValidSignature(_ signature: some Collection<UInt8>, forDigest digest: some Collection<UInt8>) -> Bool {
        let raw = Array(signature), digest = Array(digest)
        guard raw.count == 64, digest.count == 32, let der = Self.der(fromRaw: raw) else { return false }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_verify_init(ctx) == 1, EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 else { return false }
        let ok = EVP_PKEY_verify(ctx, der, der.count, digest, digest.count) == 1
        ERR_clear_error()
        return ok
    }

    /// Whether `signature` is a valid ES256 signature of `message`.
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        isValidSignature(signature, forDigest: Digest.sha256(message))
    }

    /// `r || s` to DER; nil if OpenSSL cannot represent it.
    private static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        guard let r = BN_bin2bn(raw, 32, nil) else { return nil }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_ECDSA_SIG(sig, &cursor)
        }
        return der
    }

    /// Throws unless `key` is an EC key on P-256.
    static func requireP256(_ key: OpaquePointer) throws(ECDSAError) {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { throw ECDSAError("not an EC key") }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { throw ECDSAError("EC key without a named curve") }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" || curve == "P-256" else { throw ECDSAError("EC key on \(curve), not P-256") }
    }
}

/// A password callback that refuses, so an encrypted key fails instead of prompting on a terminal.
private let noPassword: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in 0 }

/// Writes a PEM object into a memory BIO and returns it as text ("" if OpenSSL fails).
private func pemText(_ write: (OpaquePointer) -> Int32) -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { return "" }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { return "" }
    var pointer: UnsafeMutablePointer<CChar>?
    let length = parley_BIO_get_mem_data(bio, &pointer)
    guard let pointer, length > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
}

/// Reads a whole (small) text file through OpenSSL's file BIO.
private func readTextFile(_ path: String) throws(ECDSAError) -> String {
    guard let bio = BIO_new_file(path, "r") else { throw ECDSAError("cannot open \(path)") }
    defer { BIO_free(bio) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 1 << 20 {
        let n = chunk.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { break }
        bytes += chunk.prefix(Int(n))
    }
    return String(decoding: bytes, as: UTF8.self)
}
