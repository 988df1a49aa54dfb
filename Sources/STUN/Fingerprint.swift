import WireKit

/// The result of checking MESSAGE-INTEGRITY or FINGERPRINT in received bytes.
public enum STUNVerification: Sendable, Hashable {
    /// The attribute is present and matches.
    case valid
    /// The attribute is present and does not match.
    case invalid
    /// The message has no such attribute.
    case absent
}

/// FINGERPRINT (RFC 8489 §14.7): CRC-32 of the message up to the attribute, XOR 0x5354554E, with
/// the header's length already covering the FINGERPRINT itself. It is always the last attribute.
enum Fingerprint {
    /// "STUN" in ASCII; the XOR keeps the value distinct from other protocols' CRCs.
    static let xorValue: UInt32 = 0x5354_554E

    /// Appends FINGERPRINT to the complete message at `messageStart` in `w`, first growing the
    /// header's length by the attribute's 8 bytes.
    static func append(to w: inout ByteWriter, messageStart: Int) {
        let length = w.count - messageStart - STUNMessage.headerSize + 8
        w.setUInt16(UInt16(truncatingIfNeeded: length), at: messageStart + 2)
        let crc = w.bytes[messageStart...].withUnsafeBytes { CRC32.checksum($0) }
        w.writeUInt16(STUNAttributeType.fingerprint.rawValue)
        w.writeUInt16(4)
        w.writeUInt32(crc ^ xorValue)
    }
}

extension STUNMessage {
    /// Checks the FINGERPRINT of a received message (RFC 8489 §14.7). Throws if `bytes` is not a
    /// well-formed message.
    public static func verifyFingerprint(of bytes: UnsafeRawBufferPointer) throws(STUNError) -> STUNVerification {
        var walker = try AttributeWalker(bytes)
        var found: AttributeWalker.Raw?
        while let raw = try walker.next() {
            if raw.type == .fingerprint { found = raw }
        }
        guard let found else { return .absent }
        let received = try STUNAttribute.fixed32(found.value, .fingerprint)
        let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[..<found.offset]))
        return crc ^ Fingerprint.xorValue == received ? .valid : .invalid
    }
}
