/// The ICE username fragment and password of one side (RFC 8445 §5.3; SDP `ice-ufrag` and
/// `ice-pwd`, RFC 8839 §5.4).
///
/// Checks carry USERNAME `"<receiver ufrag>:<sender ufrag>"` and are signed with the receiver's
/// password (RFC 8445 §7.2.2).
public struct ICECredentials: Sendable, Hashable, CustomStringConvertible {
    public var ufrag: String
    public var pwd: String

    public init(ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// `ice-char = ALPHA / DIGIT / "+" / "/"` (RFC 8839 §5.4).
    static let iceChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Fresh credentials from `generator` (pass `SystemRandomNumberGenerator` or another secure
    /// generator in production): an 8-character ufrag (≥ 24 bits of randomness) and a
    /// 24-character password (≥ 128 bits), as RFC 8445 §5.3 requires.
    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        ICECredentials(ufrag: randomString(8, using: &generator), pwd: randomString(24, using: &generator))
    }

    static func randomString(_ count: Int, using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count { bytes.append(iceChars[Int(generator.next(upperBound: UInt64(iceChars.count)))]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// True when both follow RFC 8839 §5.4: ice-chars only, ufrag 4–256 and password 22–256 long.
    public var isValid: Bool {
        func ok(_ s: String, _ range: ClosedRange<Int>) -> Bool {
            range.contains(s.utf8.count) && s.utf8.allSatisfy { Self.iceChars.contains($0) }
        }
        return ok(ufrag, 4...256) && ok(pwd, 22...256)
    }

    /// The password is never printed.
    public var description: String { "ICECredentials(ufrag: \(ufrag))" }
}
