import WireKit

/// The SDES `crypto` attribute (RFC 4568 §9.1): `a=crypto:<tag> <crypto-suite> <key-params>
/// [<session-params>]`, e.g.
/// `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:32`.
/// Not decoded by ``SDPAttributeValue`` (an offer may carry suites nobody knows, which the
/// answerer skips, RFC 4568 §7.1.2): read it from an `SDPAttribute` with ``init(attribute:)``.
public struct SDPCrypto: Sendable, Hashable, CustomStringConvertible {
    /// 1*9DIGIT, unique within the media section.
    public var tag: UInt32
    /// e.g. `AES_CM_128_HMAC_SHA1_80`, `AES_CM_128_HMAC_SHA1_32`, `AEAD_AES_256_GCM`.
    public var suite: String
    /// One or more key parameters (several keys with MKIs, RFC 4568 §6.1).
    public var keys: [SDPCryptoKey]
    /// Session parameters as written (`KDR=1`, `UNENCRYPTED_SRTCP`, `FEC_ORDER=FEC_SRTP`, …).
    public var sessionParameters: [String]

    public init(tag: UInt32, suite: String, keys: [SDPCryptoKey], sessionParameters: [String] = []) {
        self.tag = tag
        self.suite = suite
        self.keys = keys
        self.sessionParameters = sessionParameters
    }

    /// Parses the value after `crypto:`, or a whole `a=crypto:…` / `crypto:…` line.
    public init(parsing text: String) throws(SDPParseError) {
        var value = Substring(text)
        if value.hasSuffix("\r\n") { value = value.dropLast(2) }
        if value.hasPrefix("a=") { value = value.dropFirst(2) }
        if value.hasPrefix("crypto:") { value = value.dropFirst(7) }
        try self.init(value: value)
    }

    /// Reads a `crypto` attribute; throws for another name or a malformed value.
    public init(attribute: SDPAttribute) throws(SDPParseError) {
        guard attribute.name == "crypto", let value = attribute.value else { throw .invalidValue("crypto") }
        try self.init(value: Substring(value))
    }

    init(value: Substring) throws(SDPParseError) {
        // Fields are separated by 1*WSP (SP or HTAB).
        let fields = value.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 3, fields[0].utf8.count <= 9, let tag = SDPText.decimal(fields[0], as: UInt32.self),
              !fields[1].isEmpty, fields[1].utf8.allSatisfy(Self.isSuiteCharacter) else { throw .invalidValue("crypto") }
        self.tag = tag
        suite = String(fields[1])
        keys = try fields[2].split(separator: ";", omittingEmptySubsequences: false).map { key throws(SDPParseError) in
            try SDPCryptoKey(value: key)
        }
        sessionParameters = fields.dropFirst(3).map(String.init)
        // session-param = 1*(VCHAR).
        guard sessionParameters.allSatisfy({ $0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) else { throw .invalidValue("crypto") }
    }

    /// The attribute value (after `crypto:`).
    public var sdpValue: String {
        ([String(tag), suite, keys.map(\.sdpValue).joined(separator: ";")] + sessionParameters).joined(separator: " ")
    }

    /// The `a=crypto` attribute.
    public var attribute: SDPAttribute { SDPAttribute(name: "crypto", value: sdpValue) }

    public var description: String { "a=crypto:" + sdpValue }

    private static func isSuiteCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }
}

/// One key-param (RFC 4568 §9.1, §6.1): `inline:<key||salt base64>[|lifetime][|MKI:length]`,
/// or another key method kept as text.
public struct SDPCryptoKey: Sendable, Hashable {
    /// `lifetime` = ["2^"] 1*DIGIT: a packet count, written as a power of two or in decimal.
    public enum Lifetime: Sendable, Hashable {
        case powerOfTwo(UInt8)
        case packets(UInt64)

        /// The number of packets, nil when it does not fit 64 bits.
        public var packets: UInt64? {
            switch self {
            case .powerOfTwo(let exponent): exponent < 64 ? UInt64(1) << UInt64(exponent) : nil
            case .packets(let count): count
            }
        }
    }

    /// `inline`, or another key method (RFC 4568 §6.1 allows extensions).
    public var method: String
    /// For `inline`: the master key followed by the master salt, decoded.
    public var keySalt: [UInt8]
    public var lifetime: Lifetime?
    /// The MKI value and its length in bytes (1…128).
    public var mki: (value: UInt64, length: UInt8)? {
        get { mkiValue.map { ($0, mkiLength) } }
        set {
            mkiValue = newValue?.value
            mkiLength = newValue?.length ?? 0
        }
    }
    /// For another method, the key-info as written.
    public var info: String?
    private var mkiValue: UInt64?
    private var mkiLength: UInt8 = 0

    /// An inline key.
    public init(keySalt: [UInt8], lifetime: Lifetime? = nil, mki: (value: UInt64, length: UInt8)? = nil) {
        method = "inline"
        self.keySalt = keySalt
        self.lifetime = lifetime
        self.mki = mki
    }

    init(value: Substring) throws(SDPParseError) {
        let (method, rest) = SDPText.splitOnce(value, at: ":")
        guard let rest, !method.isEmpty, !rest.isEmpty else { throw .invalidValue("crypto") }
        self.method = String(method)
        keySalt = []
        guard method == "inline" else {
            info = String(rest)
            return
        }
        var parts = rest.split(separator: "|", omittingEmptySubsequences: false)
        // Some endpoints omit the padding of 46-byte keys; accept that.
        guard let key = Base64.decode(parts.removeFirst(), requirePadding: false), !key.isEmpty, parts.count <= 2 else {
            throw .invalidValue("crypto")
        }
        keySalt = key
        for part in parts {
            if part.contains(":") {
                let (value, length) = SDPText.splitOnce(part, at: ":")
                guard mkiValue == nil, let value = SDPText.decimal(value, as: UInt64.self),
                      let length, length.utf8.count <= 3, let bytes = SDPText.decimal(length, as: UInt8.self),
                      (1...128).contains(bytes) else { throw .invalidValue("crypto") }
                mkiValue = value
                mkiLength = bytes
            } else {
                // The lifetime comes before the MKI.
                guard lifetime == nil, mkiValue == nil else { throw .invalidValue("crypto") }
                if part.hasPrefix("2^") {
                    guard let exponent = SDPText.decimal(part.dropFirst(2), as: UInt8.self) else { throw .invalidValue("crypto") }
                    lifetime = .powerOfTwo(exponent)
                } else {
                    guard let count = SDPText.decimal(part, as: UInt64.self) else { throw .invalidValue("crypto") }
                    lifetime = .packets(count)
                }
            }
        }
    }

    /// The master key (the first `keyLength` bytes of ``keySalt``) and salt (the rest).
    public func split(keyLength: Int) -> (key: [UInt8], salt: [UInt8])? {
        guard keyLength > 0, keyLength < keySalt.count else { return nil }
        return (Array(keySalt[..<keyLength]), Array(keySalt[keyLength...]))
    }

    /// `inline:…|…|…`.
    public var sdpValue: String {
        guard method == "inline" else { return method + ":" + (info ?? "") }
        var out = "inline:" + Base64.encode(keySalt)
        switch lifetime {
        case .powerOfTwo(let exponent)?: out += "|2^\(exponent)"
        case .packets(let count)?: out += "|\(count)"
        case nil: break
        }
        if let mkiValue { out += "|\(mkiValue):\(mkiLength)" }
        return out
    }
}
