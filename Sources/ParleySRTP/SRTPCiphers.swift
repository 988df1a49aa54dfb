import COpenSSL
import ParleyCore

/// AES-128 in counter mode on one reusable OpenSSL context (RFC 3711 §4.1.1). Each packet sets a
/// fresh 128-bit IV; the key schedule is expanded once, and nothing is allocated per packet.
final class AESCounterMode {
    private let context: OpaquePointer

    init(key: [UInt8]) throws(ParleyError) {
        guard key.count == 16, let context = EVP_CIPHER_CTX_new() else {
            throw ParleyError(.mediaConnection, reason: "AES-128-CTR context could not be created")
        }
        self.context = context
        guard key.withUnsafeBufferPointer({ EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, $0.baseAddress, nil) }) == 1
        else { throw ParleyError(.mediaConnection, reason: "AES-128-CTR key setup failed") }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// XORs the keystream that starts at counter block `iv` (16 bytes) into `bytes[0..<count]`.
    func apply(iv: UnsafePointer<UInt8>, to bytes: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        guard EVP_EncryptInit_ex(context, nil, nil, nil, iv) == 1 else { return false }
        guard count > 0 else { return true }
        var written: Int32 = 0
        return EVP_EncryptUpdate(context, bytes, &written, bytes, Int32(count)) == 1 && Int(written) == count
    }
}

/// AES-128-GCM with a 12-byte IV and a 16-byte tag (RFC 7714 §5), one OpenSSL context per
/// direction of use, keyed once.
final class AESGCM {
    static let tagLength = 16
    private let sealer: OpaquePointer
    private let opener: OpaquePointer

    init(key: [UInt8]) throws(ParleyError) {
        guard key.count == 16, let sealer = EVP_CIPHER_CTX_new() else {
            throw ParleyError(.mediaConnection, reason: "AES-128-GCM context could not be created")
        }
        guard let opener = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(sealer)
            throw ParleyError(.mediaConnection, reason: "AES-128-GCM context could not be created")
        }
        self.sealer = sealer
        self.opener = opener
        let ready = key.withUnsafeBufferPointer { key in
            EVP_EncryptInit_ex(sealer, EVP_aes_128_gcm(), nil, nil, nil) == 1
                && parley_EVP_CIPHER_CTX_set_gcm_iv_length(sealer, 12) == 1
                && EVP_EncryptInit_ex(sealer, nil, nil, key.baseAddress, nil) == 1
                && EVP_DecryptInit_ex(opener, EVP_aes_128_gcm(), nil, nil, nil) == 1
                && parley_EVP_CIPHER_CTX_set_gcm_iv_length(opener, 12) == 1
                && EVP_DecryptInit_ex(opener, nil, nil, key.baseAddress, nil) == 1
        }
        guard ready else { throw ParleyError(.mediaConnection, reason: "AES-128-GCM key setup failed") }
    }

    deinit {
        EVP_CIPHER_CTX_free(sealer)
        EVP_CIPHER_CTX_free(opener)
    }

    /// Encrypts `text` in place and writes the tag to `tag` (16 bytes). The associated data is
    /// `aad` followed by `moreAAD` (SRTCP authenticates its index after the header, RFC 7714 §9.1).
    func seal(iv: UnsafePointer<UInt8>, aad: UnsafeRawBufferPointer, moreAAD: UnsafeRawBufferPointer? = nil,
              text: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawPointer) -> Bool {
        var written: Int32 = 0
        guard EVP_EncryptInit_ex(sealer, nil, nil, nil, iv) == 1,
              Self.update(sealer, aad: aad, moreAAD: moreAAD, text: text, encrypt: true) else { return false }
        let end = text.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + text.count }
        return EVP_EncryptFinal_ex(sealer, end, &written) == 1
            && parley_EVP_CIPHER_CTX_get_gcm_tag(sealer, Int32(Self.tagLength), tag) == 1
    }

    /// Decrypts `text` in place if `tag` verifies; false (and `text` undefined) otherwise.
    func open(iv: UnsafePointer<UInt8>, aad: UnsafeRawBufferPointer, moreAAD: UnsafeRawBufferPointer? = nil,
              text: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawPointer) -> Bool {
        var written: Int32 = 0
        guard EVP_DecryptInit_ex(opener, nil, nil, nil, iv) == 1,
              Self.update(opener, aad: aad, moreAAD: moreAAD, text: text, encrypt: false),
              parley_EVP_CIPHER_CTX_set_gcm_tag(opener, Int32(Self.tagLength), tag) == 1 else { return false }
        let end = text.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + text.count }
        return EVP_DecryptFinal_ex(opener, end, &written) == 1
    }

    private static func update(_ context: OpaquePointer, aad: UnsafeRawBufferPointer, moreAAD: UnsafeRawBufferPointer?,
                               text: UnsafeMutableRawBufferPointer, encrypt: Bool) -> Bool {
        let step = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate
        var written: Int32 = 0
        func authenticateOnly(_ part: UnsafeRawBufferPointer?) -> Bool {
            guard let part, part.count > 0, let base = part.baseAddress else { return true }
            return step(context, nil, &written, base.assumingMemoryBound(to: UInt8.self), Int32(part.count)) == 1
        }
        guard authenticateOnly(aad), authenticateOnly(moreAAD) else { return false }
        guard text.count > 0, let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        return step(context, base, &written, base, Int32(text.count)) == 1 && Int(written) == text.count
    }
}

/// HMAC-SHA1 (RFC 2104) with the key's inner and outer pads hashed once: each tag copies the two
/// precomputed `SHA_CTX` values by value, so a packet costs two short SHA-1 runs and no allocation.
struct HMACSHA1 {
    static let digestLength = 20
    private var inner = SHA_CTX()
    private var outer = SHA_CTX()

    init(key: [UInt8]) {
        var block = [UInt8](repeating: 0, count: 64)  // keys here are 20 bytes, shorter than a block
        for (i, byte) in key.prefix(64).enumerated() { block[i] = byte }
        let innerPad = block.map { $0 ^ 0x36 }, outerPad = block.map { $0 ^ 0x5C }
        _ = parley_SHA1_Init(&inner)
        _ = parley_SHA1_Update(&inner, innerPad, 64)
        _ = parley_SHA1_Init(&outer)
        _ = parley_SHA1_Update(&outer, outerPad, 64)
    }

    /// Writes the first `count` (≤ 20) bytes of HMAC(key, `message` ‖ `suffix`) to `tag`.
    func authenticate(_ message: UnsafeRawBufferPointer, suffix: UnsafeRawBufferPointer, count: Int,
                      into tag: UnsafeMutableRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.digestLength) { digest in
            var hash = inner
            if let base = message.baseAddress { _ = parley_SHA1_Update(&hash, base, message.count) }
            if let base = suffix.baseAddress { _ = parley_SHA1_Update(&hash, base, suffix.count) }
            _ = parley_SHA1_Final(digest.baseAddress, &hash)
            hash = outer
            _ = parley_SHA1_Update(&hash, digest.baseAddress, Self.digestLength)
            _ = parley_SHA1_Final(digest.baseAddress, &hash)
            tag.copyMemory(from: digest.baseAddress!, byteCount: min(count, Self.digestLength))
        }
    }
}
