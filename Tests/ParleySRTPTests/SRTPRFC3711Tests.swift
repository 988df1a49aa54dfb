import Testing
@testable import ParleySRTP

/// RFC 3711 Appendix B test vectors, the rollover-counter estimate of §3.3.1 / Appendix A and the
/// replay list of §3.3.2.
@Suite struct SRTPRFC3711Tests {
    /// RFC 3711 B.3: key derivation from master key E1F9… and master salt 0EC6….
    @Test func rfc3711AppendixB3KeyDerivation() throws {
        let keys = try SRTPSessionKeys(profile: .aes128CMHMACSHA1_80,
                                       masterKey: SRTPFixtures.bytes("E1F97A0D3E018BE0D64FA32C06DE4139"),
                                       masterSalt: SRTPFixtures.bytes("0EC675AD498AFEEBB6960B3AABE6"))
        #expect(SRTPFixtures.hex(keys.rtpCipherKey) == "c61e7a93744f39ee10734afe3ff7a087")
        #expect(SRTPFixtures.hex(keys.rtpSalt) == "30cbbc08863d8c85d49db34a9ae1")
        #expect(SRTPFixtures.hex(keys.rtpAuthenticationKey) == "cebe321f6ff7716b6fd4ab49af256a156d38baa4")
    }

    /// RFC 3711 B.2: the AES-CM keystream for session key 2B7E… and salt F0F1…FD, IV F0F1…FD0000.
    @Test func rfc3711AppendixB2KeystreamSegments() throws {
        let counter = try AESCounterMode(key: SRTPFixtures.bytes("2B7E151628AED2A6ABF7158809CF4F3C"))
        var iv = SRTPFixtures.bytes("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000")
        var stream = [UInt8](repeating: 0, count: 48)
        let ok = iv.withUnsafeMutableBufferPointer { iv in
            stream.withUnsafeMutableBufferPointer { counter.apply(iv: iv.baseAddress!, to: $0.baseAddress!, count: 48) }
        }
        #expect(ok)
        #expect(SRTPFixtures.hex(stream) == "e03ead0935c95e80e166b16dd92b4eb4" + "d23513162b02d0f72a43a2fe4a5f97ab"
                + "41e95b3bb0a2e8dd477901e4fca894c0")
    }

    @Test func rolloverCounterIsEstimatedAcrossTheWrap() {
        let estimate = SRTPStreamTable.estimateIndex
        #expect(estimate(5, nil) == 5)
        #expect(estimate(65_535, 65_534) == 65_535)
        #expect(estimate(2, 65_535) == 0x1_0002)              // wrapped forward: ROC + 1
        #expect(estimate(65_530, 0x1_0003) == 65_530)         // late packet from before the wrap: ROC − 1
        #expect(estimate(65_530, 3) == nil)                   // would precede index 0
        #expect(estimate(40_000, 0x2_0010) == 0x1_9C40)       // more than half a cycle behind
    }

    @Test func replayWindowRingTracksTheLast1024Indices() {
        var window = SRTPReplayWindow(size: 1024)
        #expect(window.check(10) == .fresh)
        window.accept(10)
        #expect(window.check(10) == .repeated)
        window.accept(12)
        #expect(window.check(11) == .fresh)                   // skipped, still acceptable
        window.accept(11)
        #expect(window.check(11) == .repeated)
        window.accept(12 + 1023)                              // 12 is now the oldest index in the window
        #expect(window.check(12) == .repeated)
        #expect(window.check(11) == .tooOld)
        #expect(window.check(500) == .fresh)                  // jumped over: its slot was cleared
        window.accept(10_000)                                 // a jump past the window clears everything
        #expect(window.check(9_990) == .fresh)
        #expect(window.check(10_000) == .repeated)
        #expect(window.check(8_976) == .tooOld)
    }
}
