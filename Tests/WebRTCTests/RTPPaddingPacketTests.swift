import RTP
import Testing
@testable import WebRTC

/// The padding-only packets of up-switch probes (RFC 3550 §5.1) read back as a receiver reads them.
@Suite struct RTPPaddingPacketTests {
    @Test(arguments: [true, false]) func aPaddingPacketCarriesNoPayloadAndItsStamp(stamped: Bool) throws {
        var slot = [UInt8](repeating: 0xEE, count: 2048)
        let length = slot.withUnsafeMutableBytes {
            RTPPaddingPacket.write(into: $0, ssrc: 0x1234_5678, payloadType: 97, sequenceNumber: 0xFFFF, timestamp: 90_000,
                                   absSendTime: stamped ? (id: 3, value: 0xABCDEF) : nil)
        }
        #expect(length == RTPPaddingPacket.length - (stamped ? 0 : 8))
        try slot.withUnsafeBytes { raw in
            let view = try RTPPacketView(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            #expect(view.ssrc == 0x1234_5678 && view.payloadType == 97 && view.sequenceNumber == 0xFFFF && view.timestamp == 90_000)
            #expect(view.hasPadding && view.paddingCount == RTPPaddingPacket.paddingBytes && view.payload.isEmpty && !view.marker)
            if stamped {
                let element = try #require(view.extensionElement(id: 3))
                #expect(Array(element) == [0xAB, 0xCD, 0xEF])
            } else {
                #expect(view.extensionRange == nil)
            }
        }
        var small = [UInt8](repeating: 0, count: 100)
        #expect(small.withUnsafeMutableBytes {
            RTPPaddingPacket.write(into: $0, ssrc: 1, payloadType: 97, sequenceNumber: 1, timestamp: 1, absSendTime: nil)
        } == -1)
    }
}
