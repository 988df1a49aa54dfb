/// The SDES identifiers carried in header extension elements: `mid`
/// (`urn:ietf:params:rtp-hdrext:sdes:mid`, RFC 8843 §15.1), `RtpStreamId` and
/// `RepairedRtpStreamId` (`…:sdes:rtp-stream-id`, `…:sdes:repaired-rtp-stream-id`, RFC 8852 §3).
/// The element's data is the identifier's ASCII text, 1–255 bytes, nothing else (§4.3: padding
/// is not part of it). Parsing checks the characters; matching compares in place without a copy.
public struct SDESIdentifierElement: Sendable, Hashable {
    public enum Kind: Sendable {
        /// An `a=mid` value: an RFC 8866 token.
        case mid
        /// A `rid-id` (RFC 8851 §10): letters, digits, `-` and `_`.
        case streamID
    }

    public let kind: Kind
    public let text: String

    /// Decodes an element's data as `kind`, refusing an empty value or any character the kind does
    /// not allow (`elementTooShort` for empty, `invalidExtensionElement` otherwise).
    public init(parsing data: UnsafeRawBufferPointer, kind: Kind) throws(RTPError) {
        guard !data.isEmpty else { throw .elementTooShort(needed: 1, available: 0) }
        guard data.count <= 255, data.allSatisfy({ Self.allowed($0, kind: kind) }) else {
            throw .invalidExtensionElement(id: 0, length: data.count)
        }
        self.kind = kind
        text = String(decoding: data, as: UTF8.self)
    }

    public init(_ text: String, kind: Kind) {
        self.kind = kind
        self.text = text
    }

    /// Whether an element's data is `expected` (its UTF-8), compared in place: what the packet path
    /// uses to route by mid or rid without decoding.
    public static func matches(_ data: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        guard data.count == expected.count else { return false }
        var index = 0
        while index < expected.count {
            if data[index] != expected[index] { return false }
            index += 1
        }
        return true
    }

    /// The element data.
    public var serialized: [UInt8] { Array(text.utf8) }

    static func allowed(_ byte: UInt8, kind: Kind) -> Bool {
        let alphanumeric = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
        switch kind {
        case .streamID:
            return alphanumeric || byte == 0x2D || byte == 0x5F
        case .mid:
            // RFC 8866 §9 token-char: %x21 / %x23-27 / %x2A-2B / %x2D-2E / %x30-39 / %x41-5A / %x5E-7E
            return byte == 0x21 || (0x23...0x27).contains(byte) || byte == 0x2A || byte == 0x2B || byte == 0x2D
                || byte == 0x2E || alphanumeric || (0x5E...0x7E).contains(byte)
        }
    }
}
