import WireKit

/// HMAC supplied by the caller, so the STUN codec needs no crypto library: for example
/// `{ HMAC.sha1(key: $0, message: $1) }` from ParleyCrypto.
public typealias HMACFunction = @Sendable (_ key: [UInt8], _ message: UnsafeRawBufferPointer) -> [UInt8]

/// MD5 supplied by the caller, for the long-term credential key (RFC 8489 §9.2.2).
public typealias MD5Function = @Sendable (_ message: [UInt8]) -> [UInt8]

/// How to compute or check MESSAGE-INTEGRITY (RFC 8489 §14.5, HMAC-SHA1) or
/// MESSAGE-INTEGRITY-SHA256 (§14.6): the algorithm, the key, and the injected HMAC.
public struct STUNIntegrity: Sendable {
    public enum Algorithm: Sendable, Hashable {
        /// MESSAGE-INTEGRITY: HMAC-SHA1, 20 bytes.
        case sha1
        /// MESSAGE-INTEGRITY-SHA256: HMAC-SHA256, 32 bytes when sent (receivers accept 16–32).
        case sha256
    }

    public var algorithm: Algorithm
    /// The key: see `shortTermKey(password:)` and `longTermKey(username:realm:password:md5:)`.
    public var key: [UInt8]
    /// HMAC-SHA1 for `.sha1`, HMAC-SHA256 for `.sha256`.
    public var hmac: HMACFunction

    public init(algorithm: Algorithm, key: [UInt8], hmac: @escaping HMACFunction) {
        self.algorithm = algorithm
        self.key = key
        self.hmac = hmac
    }

    /// MESSAGE-INTEGRITY with `hmac` computing HMAC-SHA1.
    public static func sha1(key: [UInt8], hmac: @escaping HMACFunction) -> STUNIntegrity {
        STUNIntegrity(algorithm: .sha1, key: key, hmac: hmac)
    }

    /// MESSAGE-INTEGRITY-SHA256 with `hmac` computing HMAC-SHA256.
    public static func sha256(key: [UInt8], hmac: @escaping HMACFunction) -> STUNIntegrity {
        STUNIntegrity(algorithm: .sha256, key: key, hmac: hmac)
    }

    /// Short-term credentials (RFC 8489 §9.1.1): the key is the password's UTF-8 bytes. ICE uses
    /// these with the remote `ice-pwd` (RFC 8445 §7.2.2).
    public static func shortTermKey(password: String) -> [UInt8] {
        Array(password.utf8)
    }

    /// Long-term credentials (RFC 8489 §9.2.2): MD5(username ":" realm ":" password).
    ///
    /// Pass text already prepared with the OpaqueString profile (RFC 8265); the codec does not.
    public static func longTermKey(username: String, realm: String, password: String,
                                   md5: MD5Function) -> [UInt8] {
        md5(Array("\(username):\(realm):\(password)".utf8))
    }

    var attributeType: STUNAttributeType { algorithm.attributeType }

    var macLength: Int { algorithm == .sha1 ? 20 : 32 }

    /// Appends the integrity attribute to the complete message at `messageStart` in `w`. The HMAC
    /// covers the message with its length already counting this attribute (§14.5).
    func append(to w: inout ByteWriter, messageStart: Int) {
        let length = w.count - messageStart - STUNMessage.headerSize + 4 + macLength
        w.setUInt16(UInt16(truncatingIfNeeded: length), at: messageStart + 2)
        let mac = w.bytes[messageStart...].withUnsafeBytes { hmac(key, $0) }
        precondition(mac.count >= macLength, "STUNIntegrity: the HMAC returned \(mac.count) bytes, want \(macLength)")
        w.writeUInt16(attributeType.rawValue)
        w.writeUInt16(UInt16(macLength))
        w.writeBytes(mac.prefix(macLength))
    }
}

extension STUNMessage {
    /// Checks MESSAGE-INTEGRITY (or -SHA256, per `integrity.algorithm`) of a received message.
    ///
    /// The HMAC runs over the bytes before the attribute with the header's length rewritten to end
    /// at the attribute, discounting a MESSAGE-INTEGRITY-SHA256 or FINGERPRINT after it
    /// (RFC 8489 §14.5, §14.6). The comparison takes constant time. Throws if `bytes` is not a
    /// well-formed message.
    public static func verifyIntegrity(of bytes: UnsafeRawBufferPointer,
                                       using integrity: STUNIntegrity) throws(STUNError) -> STUNVerification {
        var walker = try AttributeWalker(bytes)
        var found: AttributeWalker.Raw?
        while let raw = try walker.next() {
            if raw.type == integrity.attributeType { found = raw }
        }
        guard let found else { return .absent }
        let received = found.value
        try integrity.algorithm.checkReceivedLength(received.count)
        var covered = Array(bytes[..<found.offset])
        let length = found.offset - STUNMessage.headerSize + 4 + received.count
        covered[2] = UInt8(truncatingIfNeeded: length >> 8)
        covered[3] = UInt8(truncatingIfNeeded: length)
        let mac = covered.withUnsafeBytes { integrity.hmac(integrity.key, $0) }
        guard mac.count >= received.count else { return .invalid }
        var difference: UInt8 = 0
        for (a, b) in zip(mac, received) { difference |= a ^ b }
        return difference == 0 ? .valid : .invalid
    }
}

extension STUNIntegrity.Algorithm {
    var attributeType: STUNAttributeType { self == .sha1 ? .messageIntegrity : .messageIntegritySHA256 }

    /// Refuses a received MAC of a length the attribute does not allow: MESSAGE-INTEGRITY is 20
    /// bytes (RFC 8489 §14.5); MESSAGE-INTEGRITY-SHA256 16 to 32, a multiple of 4 (§14.6).
    func checkReceivedLength(_ length: Int) throws(STUNError) {
        let allowed = switch self {
        case .sha1: length == 20
        case .sha256: (16...32).contains(length) && length % 4 == 0
        }
        guard allowed else { throw .invalidValueLength(attributeType, length: length) }
    }
}
