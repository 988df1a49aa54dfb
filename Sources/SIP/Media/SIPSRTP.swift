import SDP

/// Whether a SIP leg's media is encrypted with SDES-SRTP (RFC 4568), per endpoint or trunk.
public enum SIPMediaEncryption: String, Sendable, Hashable, CaseIterable {
    /// RTP/SAVP with `a=crypto`; a plain offer is refused (488).
    case required
    /// RTP/AVP with `a=crypto` (best-effort SDES, which many phones accept); plain if the peer
    /// answers or offers without keys.
    case optional
    /// RTP/AVP only; keys offered on RTP/AVP are ignored, RTP/SAVP is refused.
    case none
}

/// The SDES crypto suites we offer and accept (RFC 4568 §6.2), both with a 16-byte master key
/// and 14-byte salt.
public enum SIPSRTPSuite: String, Sendable, Hashable, CaseIterable {
    case aesCM128HMACSHA1_80 = "AES_CM_128_HMAC_SHA1_80"
    case aesCM128HMACSHA1_32 = "AES_CM_128_HMAC_SHA1_32"

    public var keyLength: Int { 16 }
    public var saltLength: Int { 14 }
    /// The SRTP authentication tag, in bytes.
    public var tagLength: Int { self == .aesCM128HMACSHA1_80 ? 10 : 4 }
}

/// An SDES master key and salt: the 30 bytes of an `inline:` key for the AES-CM suites
/// (RFC 4568 §6.1).
public struct SIPSRTPKey: Sendable, Hashable {
    public let keySalt: [UInt8]

    /// Nil unless `keySalt` is 30 bytes.
    public init?(keySalt: [UInt8]) {
        guard keySalt.count == 30 else { return nil }
        self.keySalt = keySalt
    }

    public static func random(using generator: inout some RandomNumberGenerator) -> SIPSRTPKey {
        SIPSRTPKey(uncheckedKeySalt: (0..<30).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    public static func random() -> SIPSRTPKey {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    private init(uncheckedKeySalt: [UInt8]) { keySalt = uncheckedKeySalt }

    public var masterKey: [UInt8] { Array(keySalt[..<16]) }
    public var masterSalt: [UInt8] { Array(keySalt[16...]) }
}

/// Agreed SDES-SRTP: the suite, the crypto tag, the key we send with and the peer's.
public struct SIPSRTPParameters: Sendable, Hashable {
    public var suite: SIPSRTPSuite
    public var tag: UInt32
    /// Protects what we send (our `a=crypto` key).
    public var localKey: SIPSRTPKey
    /// Unprotects what the peer sends (its `a=crypto` key).
    public var remoteKey: SIPSRTPKey

    public init(suite: SIPSRTPSuite, tag: UInt32, localKey: SIPSRTPKey, remoteKey: SIPSRTPKey) {
        self.suite = suite
        self.tag = tag
        self.localKey = localKey
        self.remoteKey = remoteKey
    }
}

extension SIPSRTPSuite {
    /// The suite and key of a crypto line we can use: a known suite, one inline 30-byte key
    /// without MKI, no session parameters (RFC 4568 §7.1.2: the answerer skips lines it cannot
    /// honour). Nil otherwise.
    static func usable(_ crypto: SDPCrypto, among suites: [SIPSRTPSuite]) -> (SIPSRTPSuite, SIPSRTPKey)? {
        guard let suite = SIPSRTPSuite(rawValue: crypto.suite), suites.contains(suite), crypto.keys.count == 1,
              let key = crypto.keys.first, key.method == "inline", key.mki == nil, crypto.sessionParameters.isEmpty,
              let material = SIPSRTPKey(keySalt: key.keySalt) else { return nil }
        return (suite, material)
    }

    /// The `a=crypto` line offering or answering with `key`.
    func crypto(tag: UInt32, key: SIPSRTPKey) -> SDPCrypto {
        SDPCrypto(tag: tag, suite: rawValue, keys: [SDPCryptoKey(keySalt: key.keySalt)])
    }
}
