import WireKit

/// USERNAME, REALM, NONCE, SOFTWARE and the ERROR-CODE reason: UTF-8 text with a byte limit
/// (RFC 8489 §14.3, §14.9, §14.10, §14.14, §14.8).
///
/// The codec does not apply the OpaqueString profile (RFC 8265): callers pass text that has
/// already been prepared, as RFC 5769 §2.4 does with "TheMatrIX".
enum TextAttribute {
    /// Largest USERNAME accepted: RFC 5389 allowed fewer than 513 bytes (RFC 8489: fewer than 509).
    static let usernameMaxBytes = 512
    /// REALM, NONCE, SOFTWARE and reasons: fewer than 128 characters, at most 763 bytes.
    static let textMaxBytes = 763

    /// The text of a `type` attribute (or of ERROR-CODE's reason, with `type` `.errorCode`).
    static func parse(_ value: UnsafeRawBufferPointer, _ type: STUNAttributeType, maxBytes: Int) throws(STUNError) -> String {
        guard value.count <= maxBytes else { throw .textTooLong(type, length: value.count) }
        guard let text = String(validating: value, as: UTF8.self) else { throw .textNotUTF8(type) }
        return text
    }
}

/// UNKNOWN-ATTRIBUTES (RFC 8489 §14.13): the 16-bit types a 420 response did not understand.
enum UnknownAttributesAttribute {
    static func parse(_ value: UnsafeRawBufferPointer) throws(STUNError) -> [STUNAttributeType] {
        guard value.count % 2 == 0 else { throw .invalidValueLength(.unknownAttributes, length: value.count) }
        return stride(from: 0, to: value.count, by: 2).map {
            STUNAttributeType(rawValue: UInt16(value[$0]) << 8 | UInt16(value[$0 + 1]))
        }
    }
}
