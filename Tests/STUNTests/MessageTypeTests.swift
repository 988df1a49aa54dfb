import STUN
import Testing

/// Message-type interleaving (RFC 8489 §5) against the values IANA and RFC 8656 list.
@Suite struct MessageTypeTests {
    static let known: [(STUNMethod, STUNMessageClass, UInt16)] = [
        (.binding, .request, 0x0001), (.binding, .indication, 0x0011),
        (.binding, .successResponse, 0x0101), (.binding, .errorResponse, 0x0111),
        (.allocate, .request, 0x0003), (.allocate, .successResponse, 0x0103), (.allocate, .errorResponse, 0x0113),
        (.refresh, .request, 0x0004), (.send, .indication, 0x0016), (.data, .indication, 0x0017),
        (.createPermission, .request, 0x0008), (.channelBind, .request, 0x0009),
        (.channelBind, .successResponse, 0x0109),
        (STUNMethod(rawValue: 0xFFF), .errorResponse, 0x3FFF), (STUNMethod(rawValue: 0x080), .request, 0x0200),
    ]

    @Test(arguments: known)
    func encodes(method: STUNMethod, messageClass: STUNMessageClass, encoded: UInt16) {
        let t = STUNMessageType(method: method, messageClass: messageClass)
        #expect(t.encoded == encoded)
        #expect(STUNMessageType(encoded: encoded) == t)
    }

    @Test func everyFourteenBitValueRoundTrips() {
        for v in UInt16(0)...0x3FFF { #expect(STUNMessageType(encoded: v).encoded == v) }
    }

    @Test func methodIsTwelveBits() {
        #expect(STUNMethod(rawValue: 0xF001) == .binding)
        #expect(STUNAttributeType.xorMappedAddress.isComprehensionRequired)
        #expect(!STUNAttributeType.fingerprint.isComprehensionRequired)
        #expect(STUNAttributeType.iceControlling.description == "ICE-CONTROLLING")
    }

    @Test func transactionIDBytes() {
        let bytes: [UInt8] = Array(1...12)
        #expect(STUNTransactionID(bytes: bytes)?.bytes == bytes)
        #expect(STUNTransactionID(bytes: bytes.dropLast()) == nil)
        var g = SystemRandomNumberGenerator()
        #expect(STUNTransactionID.random(using: &g).bytes.count == 12)
    }
}
