import Testing
import WireKit

@Suite struct WireKitTests {
    @Test func readsBigEndianAndRefusesToOverrun() throws {
        let bytes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]
        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            var r = ByteReader(raw)
            #expect(try r.readUInt8() == 0x01)
            #expect(try r.readUInt16() == 0x0203)
            #expect(try r.readUInt24() == 0x040506)
            #expect(r.remaining == 3)
            #expect(throws: WireError.truncated(needed: 4, available: 3)) { try r.readUInt32() }
            #expect(try r.readBytes(3) == [7, 8, 9])
            #expect(r.isAtEnd)
            #expect(throws: WireError.self) { try r.readBytes(-1) }
        }
    }

    @Test func writerRoundTripsThroughReader() throws {
        var w = ByteWriter(capacity: 32)
        w.writeUInt8(0xAB); w.writeUInt16(0xBEEF); w.writeUInt24(0x123456); w.writeUInt32(0xDEADBEEF)
        w.writeUInt64(0x0102_0304_0506_0708); w.writeZeros(2)
        w.setUInt16(0x4242, at: 1)
        let bytes = w.take()
        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            var r = ByteReader(raw)
            #expect(try r.readUInt8() == 0xAB)
            #expect(try r.readUInt16() == 0x4242)
            #expect(try r.readUInt24() == 0x123456)
            #expect(try r.readUInt32() == 0xDEADBEEF)
            #expect(try r.readUInt64() == 0x0102_0304_0506_0708)
            #expect(try r.readUInt16() == 0)
        }
    }

    /// RFC 1982 §3.2 / RFC 3550 §A.1: comparison and distance across the wrap.
    @Test func serialNumbersWrap() {
        #expect(SerialNumber.isNewer(UInt16(1), than: 65535))
        #expect(!SerialNumber.isNewer(UInt16(65535), than: 1))
        #expect(SerialNumber.isNewer(UInt32(5), than: 0xFFFF_FFF0))
        #expect(SerialNumber.distance(from: UInt16(65530), to: 4) == 10)
        #expect(SerialNumber.distance(from: UInt16(4), to: 65530) == -10)
        var u = SequenceUnwrapper()
        #expect(u.unwrap(65534) == 65534)
        #expect(u.unwrap(1) == 65537)
        #expect(u.unwrap(65535) == 65535)   // late packet from the previous cycle
        #expect(u.unwrap(2) == 65538)
    }
}

@Suite struct Base64RFC4648Tests {
    /// RFC 4648 §10 test vectors.
    @Test func encodesTheRFCVectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
                       "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decodedCount(encoded) == plain.utf8.count)
        }
        #expect(Base64.decodedCount("Zg=") == nil)
        #expect(Base64.decodedCount("Z=g=") == nil)
        #expect(Base64.decodedCount("Zm9-") == nil)
    }

    /// RFC 4648 §10 vectors decode back; unpadded input only when asked; §3.5 non-zero pad bits refused.
    @Test func decodesTheRFCVectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
                       "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.decode(encoded) == Array(plain.utf8))
            let unpadded = encoded.filter { $0 != "=" }
            #expect(Base64.decode(unpadded, requirePadding: false) == Array(plain.utf8))
        }
        for invalid in ["Zg", "Zg=", "Z===", "Zh==", "Zm9v!A==", "Zm 9v", "=Zm9"] {
            #expect(Base64.decode(invalid) == nil, "\(invalid)")
        }
        #expect(Base64.decode("Zh", requirePadding: false) == nil)
        #expect(Base64.decode("Z", requirePadding: false) == nil)
    }
}

@Suite struct ASCIIDecimalTests {
    @Test func parsesDigitsWithinTheType() {
        #expect(ASCIIDecimal.parse(Array("0068".utf8), as: UInt8.self) == 68)
        #expect(ASCIIDecimal.parse(Array("255".utf8), as: UInt8.self) == 255)
        #expect(ASCIIDecimal.parse(Array("256".utf8), as: UInt8.self) == nil)
        #expect(ASCIIDecimal.parse(Array("18446744073709551615".utf8), as: UInt64.self) == .max)
        #expect(ASCIIDecimal.parse(Array("18446744073709551616".utf8), as: UInt64.self) == nil)
        for invalid in ["", "-1", "+1", " 1", "1 ", "1a", "0x1"] {
            #expect(ASCIIDecimal.parse(Array(invalid.utf8), as: UInt32.self) == nil, "\(invalid)")
        }
    }
}
