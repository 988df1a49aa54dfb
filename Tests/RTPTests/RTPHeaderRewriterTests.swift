import RTP
import Testing
import WireKit

/// In-place header rewriting for forwarding: new SSRC, renumbered sequence numbers and
/// timestamps (wrapping per RFC 3550 §5.1), transport-wide sequence numbers per outgoing transport.
@Suite struct RTPHeaderRewriterTests {
    @Test func rewritesFixedHeaderInPlace() throws {
        var bytes = RTPExtensionValueTests.audioPacket
        let payloadBefore = Array(bytes.suffix(3))
        try bytes.withUnsafeMutableBytes { raw in
            let rewriter = try RTPHeaderRewriter(raw)
            rewriter.sequenceNumber = 0xFFFF
            rewriter.timestamp = 0xFFFF_FFF0
            rewriter.ssrc = 0x0BAD_F00D
            rewriter.marker = true
            rewriter.payloadType = 109
            #expect(rewriter.sequenceNumber == 0xFFFF)
        }
        try withView(bytes) { view in
            #expect(view.sequenceNumber == 0xFFFF)
            #expect(view.timestamp == 0xFFFF_FFF0)
            #expect(view.ssrc == 0x0BAD_F00D)
            #expect(view.marker)
            #expect(view.payloadType == 109)
            #expect(view.hasExtension && view.csrcCount == 0)
            #expect(Array(view.payload) == payloadBefore)
        }
    }

    @Test func rewritesExtensionElementsInPlace() throws {
        var bytes = RTPExtensionValueTests.audioPacket
        try bytes.withUnsafeMutableBytes { raw in
            let rewriter = try RTPHeaderRewriter(raw)
            #expect(rewriter.setTransportWideSequenceNumber(7, id: 3))
            #expect(rewriter.setAbsSendTime(AbsSendTime(rawValue: 0xAB_CDEF), id: 2))
            #expect(!rewriter.setTransportWideSequenceNumber(7, id: 9))
            #expect(!rewriter.setAbsSendTime(AbsSendTime(rawValue: 1), id: 1))  // 1-byte element: too short
            rewriter.extensionElement(id: 1)?[0] = 0x7F
        }
        try withView(bytes) { view throws in
            let twcc = try #require(view.extensionElement(id: 3))
            let abs = try #require(view.extensionElement(id: 2))
            let level = try #require(view.extensionElement(id: 1))
            #expect(try TransportWideSequenceNumber(parsing: twcc).value == 7)
            #expect(try AbsSendTime(parsing: abs).rawValue == 0xAB_CDEF)
            #expect(try AudioLevel(parsing: level).level == 127)
        }
    }

    /// A forwarder maps an incoming sequence space onto an outgoing one with a fixed offset;
    /// both wrap at 2^16 and the timestamps at 2^32.
    @Test func renumberingAcrossWrapKeepsSerialOrder() throws {
        let offset: UInt16 = 10
        let tsOffset: UInt32 = 0x100
        var previous: UInt16?
        for incoming in [UInt16(65530), 65533, 65535, 0, 3] {
            var bytes = RTPPacket(payloadType: 96, sequenceNumber: incoming, timestamp: 0xFFFF_FF80 &+ UInt32(incoming),
                                  ssrc: 1).serialized
            try bytes.withUnsafeMutableBytes { raw in
                let rewriter = try RTPHeaderRewriter(raw)
                rewriter.sequenceNumber = rewriter.sequenceNumber &+ offset
                rewriter.timestamp = rewriter.timestamp &+ tsOffset
            }
            let out = try RTPPacket(parsing: bytes)
            #expect(out.sequenceNumber == incoming &+ offset)
            if let previous { #expect(SerialNumber.isNewer(out.sequenceNumber, than: previous)) }
            previous = out.sequenceNumber
        }
        var unwrapper = SequenceUnwrapper()
        #expect([UInt16(65534), 65535, 0, 1].map { unwrapper.unwrap($0) } == [65534, 65535, 65536, 65537])
    }

    @Test func refusesInvalidBuffers() {
        var bytes: [UInt8] = [0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        _ = bytes.withUnsafeMutableBytes { raw in
            #expect(throws: RTPError.unsupportedVersion(1)) { try RTPHeaderRewriter(raw) }
        }
        var short: [UInt8] = [0x80, 0]
        _ = short.withUnsafeMutableBytes { raw in
            #expect(throws: RTPError.truncated(needed: 12, available: 2)) { try RTPHeaderRewriter(raw) }
        }
    }
}
