import COpenSSL

/// A certificate fingerprint as carried by the SDP `a=fingerprint` attribute (RFC 8122 §5):
/// `hash-func SP fingerprint`, e.g. `sha-256 AB:CD:…`, the hash of the DER certificate in
/// colon-separated uppercase hex pairs.
///
/// Equality compares the digests in constant time (`CRYPTO_memcmp`).
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash functions accepted here (the RFC 8122 §5 `hash-func` tokens; MD2/MD5 are refused).
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        case sha1 = "sha-1"
        case sha256 = "sha-256"
        case sha384 = "sha-384"
        case sha512 = "sha-512"

        /// Digest length in bytes.
        public var digestLength: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        }
    }

    public let algorithm: Algorithm
    /// The raw digest (`algorithm.digestLength` bytes).
    public let digest: [UInt8]

    /// A fingerprint from a digest; nil if the length does not fit the algorithm.
    public init?(algorithm: Algorithm, digest: [UInt8]) {
        guard digest.count == algorithm.digestLength else { return nil }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// The fingerprint of a DER-encoded certificate.
    public init(algorithm: Algorithm, certificateDER: [UInt8]) {
        self.algorithm = algorithm
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = certificateDER.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, algorithm.evp, nil)
            }
        }
        precondition(ok == 1 && Int(length) == algorithm.digestLength, "EVP_Digest failed")
        digest = Array(out.prefix(Int(length)))
    }

    /// Parses an `a=fingerprint` value: `sha-256 AB:CD:…` (RFC 8122 §5). The hash function name is
    /// matched case-insensitively and hex digits may be either case (RFC 8122 asks for uppercase but
    /// peers differ). Surrounding whitespace and a leading `a=fingerprint:` or `fingerprint:` are
    /// tolerated. Returns nil for unknown algorithms, a wrong length, or malformed hex.
    public init?(sdpValue: some StringProtocol) {
        var text = Substring(sdpValue).trimmingWhitespace()
        for prefix in ["a=fingerprint:", "fingerprint:"] where text.lowercased().hasPrefix(prefix) {
            text = text.dropFirst(prefix.count).trimmingWhitespace()
        }
        guard let space = text.firstIndex(where: \.isWhitespace) else { return nil }
        guard let algorithm = Algorithm(rawValue: text[..<space].lowercased()) else { return nil }
        let hexPart = text[space...].trimmingWhitespace()
        var digest: [UInt8] = []
        for pair in hexPart.split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.utf8.count == 2, let byte = Hex.decode(String(pair)) else { return nil }
            digest.append(contentsOf: byte)
        }
        self.init(algorithm: algorithm, digest: digest)
    }

    /// The `a=fingerprint` value, e.g. `sha-256 AB:CD:…` (RFC 8122 §5, uppercase hex).
    public var sdpValue: String {
        "\(algorithm.rawValue) \(Hex.encode(digest).uppercased().chunked2().joined(separator: ":"))"
    }

    public var description: String { sdpValue }

    /// True if `certificateDER` hashes to this fingerprint; the comparison is constant-time.
    public func matches(certificateDER: [UInt8]) -> Bool {
        self == DTLSFingerprint(algorithm: algorithm, certificateDER: certificateDER)
    }

    public static func == (a: DTLSFingerprint, b: DTLSFingerprint) -> Bool {
        a.algorithm == b.algorithm && ConstantTime.equals(a.digest, b.digest)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(algorithm)
        hasher.combine(digest)
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

extension String {
    /// Consecutive two-character pieces (the hex string has even length).
    fileprivate func chunked2() -> [Substring] {
        var pieces: [Substring] = []
        var index = startIndex
        while index < endIndex {
            let next = self.index(index, offsetBy: 2, limitedBy: endIndex) ?? endIndex
            pieces.append(self[index..<next])
            index = next
        }
        return pieces
    }
}
