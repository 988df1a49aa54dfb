import WireKit

/// The ERROR-CODE attribute (RFC 8489 §14.8): a numeric code 300–699 and a UTF-8 reason phrase.
///
///     |           Reserved, should be 0         |Class|     Number    |
///     |      Reason Phrase (variable)                                ..
public struct STUNErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The code, 300–699 (class × 100 + number).
    public var code: UInt16
    /// Human-readable text; fewer than 128 characters (§14.8).
    public var reason: String

    /// `code` is clamped into 300–699 so the value always encodes.
    public init(code: UInt16, reason: String = "") {
        self.code = min(max(code, 300), 699)
        self.reason = reason
    }

    // RFC 8489 §14.8.
    public static let tryAlternate = STUNErrorCode(code: 300, reason: "Try Alternate")
    public static let badRequest = STUNErrorCode(code: 400, reason: "Bad Request")
    public static let unauthenticated = STUNErrorCode(code: 401, reason: "Unauthenticated")
    public static let unknownAttribute = STUNErrorCode(code: 420, reason: "Unknown Attribute")
    public static let staleNonce = STUNErrorCode(code: 438, reason: "Stale Nonce")
    public static let serverError = STUNErrorCode(code: 500, reason: "Server Error")
    // RFC 8445 §7.3.1.1 (ICE).
    public static let roleConflict = STUNErrorCode(code: 487, reason: "Role Conflict")
    // RFC 8656 §18 (TURN).
    public static let forbidden = STUNErrorCode(code: 403, reason: "Forbidden")
    public static let allocationMismatch = STUNErrorCode(code: 437, reason: "Allocation Mismatch")
    public static let addressFamilyNotSupported = STUNErrorCode(code: 440, reason: "Address Family not Supported")
    public static let wrongCredentials = STUNErrorCode(code: 441, reason: "Wrong Credentials")
    public static let unsupportedTransportProtocol = STUNErrorCode(code: 442, reason: "Unsupported Transport Protocol")
    public static let peerAddressFamilyMismatch = STUNErrorCode(code: 443, reason: "Peer Address Family Mismatch")
    public static let allocationQuotaReached = STUNErrorCode(code: 486, reason: "Allocation Quota Reached")
    public static let insufficientCapacity = STUNErrorCode(code: 508, reason: "Insufficient Capacity")

    public var description: String { "\(code) \(reason)" }

    var valueLength: Int { 4 + reason.utf8.count }

    init(parsing value: UnsafeRawBufferPointer) throws(STUNError) {
        guard value.count >= 4 else { throw .invalidValueLength(.errorCode, length: value.count) }
        let errorClass = UInt16(value[2] & 0x7)
        let number = UInt16(value[3])
        // Class 3–6 and number 0–99, so the code re-encodes to the same bits.
        guard (3...6).contains(errorClass), number < 100 else {
            throw .invalidErrorCode(errorClass: errorClass, number: number)
        }
        code = errorClass * 100 + number
        reason = try TextAttribute.parse(UnsafeRawBufferPointer(rebasing: value[4...]), .errorCode,
                                         maxBytes: TextAttribute.textMaxBytes)
    }

    func serialize(into w: inout ByteWriter) {
        let code = min(max(self.code, 300), 699)  // `code` is settable; keep the 3-bit class valid
        w.writeUInt32(UInt32(code / 100) << 8 | UInt32(code % 100))
        w.writeBytes(reason.utf8)
    }
}
