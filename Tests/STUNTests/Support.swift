import ParleyCrypto
import STUN
import WireKit

/// Bytes from hex that may contain spaces and newlines (as RFC figures are laid out).
func hex(_ text: String) -> [UInt8] {
    Hex.decode(String(text.filter { !$0.isWhitespace }))!
}

/// ParleyCrypto's HMAC-SHA1, injected the way a STUN consumer does it.
let hmacSHA1: HMACFunction = { HMAC.sha1(key: $0, message: $1) }
let hmacSHA256: HMACFunction = { HMAC.sha256(key: $0, message: $1) }

func parse(_ bytes: [UInt8]) throws(STUNError) -> STUNMessage {
    try STUNMessage(parsing: bytes)
}

func verifyIntegrity(_ bytes: [UInt8], _ integrity: STUNIntegrity) throws -> STUNVerification {
    try bytes.withUnsafeBytes { try STUNMessage.verifyIntegrity(of: $0, using: integrity) }
}

func verifyFingerprint(_ bytes: [UInt8]) throws -> STUNVerification {
    try bytes.withUnsafeBytes { try STUNMessage.verifyFingerprint(of: $0) }
}

/// The RFC 5769 transaction ID shared by §2.1–2.3.
let rfc5769TransactionID = STUNTransactionID(bytes: hex("b7e7a701 bc34d686 fa87dfae"))!

/// A raw message assembled by hand: header plus attributes padded with zeros. `length` overrides
/// the header's Message Length; `cookie` the magic cookie.
func rawMessage(type: UInt16 = 0x0001, attributes: [(UInt16, [UInt8])] = [], length: Int? = nil,
                cookie: UInt32 = STUNMessage.magicCookie, trailing: [UInt8] = []) -> [UInt8] {
    var body = ByteWriter()
    for (t, value) in attributes {
        body.writeUInt16(t)
        body.writeUInt16(UInt16(value.count))
        body.writeBytes(value)
        body.writeZeros((4 - value.count % 4) % 4)
    }
    var w = ByteWriter()
    w.writeUInt16(type)
    w.writeUInt16(UInt16(length ?? body.count))
    w.writeUInt32(cookie)
    w.writeBytes(rfc5769TransactionID.bytes)
    w.writeBytes(body.bytes)
    w.writeBytes(trailing)
    return w.take()
}
