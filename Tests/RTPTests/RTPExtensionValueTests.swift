import RTP
import Testing
import WireKit

/// Decoding the element values a WebRTC SFU reads: abs-send-time, transport-wide sequence
/// number (draft-holmer-rmcat-transport-wide-cc-extensions-01) and audio level (RFC 6464).
@Suite struct RTPExtensionValueTests {
    /// A Chrome-shaped audio packet: audio level (id 1), abs-send-time (id 2), transport-wide
    /// sequence number (id 3) in the one-byte form.
    static let audioPacket: [UInt8] = [
        0x90, 0x6F, 0x30, 0x39, 0x00, 0x01, 0xE2, 0x40, 0x5A, 0x5A, 0x5A, 0x5A,
        0xBE, 0xDE, 0x00, 0x03,
        0x10, 0xAA,              // id 1: V=1, level 42
        0x22, 0x06, 0x00, 0x00,  // id 2: abs-send-time 0x060000 (1.5 s)
        0x31, 0xFF, 0xFE,        // id 3: transport-wide seq 65534
        0x00, 0x00, 0x00,
        0xF8, 0xFF, 0xFE,        // Opus payload
    ]

    @Test func decodesElementsInPlace() throws {
        try withView(Self.audioPacket) { view throws in
            let level = try AudioLevel(parsing: try #require(view.extensionElement(id: 1)))
            #expect(level == AudioLevel(voiceActivity: true, level: 42))
            #expect(level.dBov == -42)
            let abs = try AbsSendTime(parsing: try #require(view.extensionElement(id: 2)))
            #expect(abs.rawValue == 0x06_0000)
            #expect(abs.seconds == 1.5)
            let twcc = try TransportWideSequenceNumber(parsing: try #require(view.extensionElement(id: 3)))
            #expect(twcc.value == 65534)
            #expect(Array(view.payload) == [0xF8, 0xFF, 0xFE])
        }
    }

    /// abs-send-time is NTP bits 14–37: 6.18 fixed point seconds, wrapping every 64 s.
    @Test func absSendTimeFromNTP() {
        let oneAndAHalf: UInt64 = 1 << 32 | 0x8000_0000
        #expect(AbsSendTime(ntpTimestamp: oneAndAHalf).rawValue == 0x06_0000)
        // 64 s later the value wraps to the same 24 bits.
        #expect(AbsSendTime(ntpTimestamp: oneAndAHalf + (64 << 32)).rawValue == 0x06_0000)
        #expect(AbsSendTime(rawValue: 0x1FF_FFFF).rawValue == 0xFF_FFFF)
        #expect(AbsSendTime(rawValue: 0x12_3456).serialized == [0x12, 0x34, 0x56])
        var writer = ByteWriter()
        AbsSendTime(rawValue: 0x12_3456).serialize(into: &writer)
        #expect(writer.bytes == [0x12, 0x34, 0x56])
    }

    /// RFC 6464 §3: V in the top bit, level 0–127 -dBov below.
    @Test(arguments: [(UInt8(0x00), false, UInt8(0)), (0x7F, false, 127), (0x80, true, 0), (0xFF, true, 127), (0x8A, true, 10)])
    func rfc6464AudioLevel(byte: UInt8, voice: Bool, level: UInt8) throws {
        let decoded = try [byte].withUnsafeBytes { raw throws(RTPError) in try AudioLevel(parsing: raw) }
        #expect(decoded.voiceActivity == voice)
        #expect(decoded.level == level)
        #expect(decoded.byte == byte)
    }

    @Test func elementValuesTooShort() {
        _ = [UInt8]().withUnsafeBytes { raw in
            #expect(throws: RTPError.elementTooShort(needed: 1, available: 0)) { try AudioLevel(parsing: raw) }
        }
        _ = [UInt8(1), 2].withUnsafeBytes { raw in
            #expect(throws: RTPError.elementTooShort(needed: 3, available: 2)) { try AbsSendTime(parsing: raw) }
        }
        _ = [UInt8(1)].withUnsafeBytes { raw in
            #expect(throws: RTPError.elementTooShort(needed: 2, available: 1)) {
                try TransportWideSequenceNumber(parsing: raw)
            }
        }
    }

    @Test func buildsElementsFromValues() throws {
        let ext = try RTPHeaderExtension(elements: [
            RTPExtensionElement(id: 1, data: AudioLevel(voiceActivity: true, level: 42).serialized),
            RTPExtensionElement(id: 2, data: AbsSendTime(rawValue: 0x06_0000).serialized),
            RTPExtensionElement(id: 3, data: TransportWideSequenceNumber(65534).serialized),
        ])
        let packet = RTPPacket(payloadType: 111, sequenceNumber: 12345, timestamp: 123_456, ssrc: 0x5A5A_5A5A,
                               headerExtension: ext, payload: [0xF8, 0xFF, 0xFE])
        #expect(packet.serialized == Self.audioPacket)
        #expect(packet.headerExtension?.element(id: 3) == [0xFF, 0xFE])
    }
}
