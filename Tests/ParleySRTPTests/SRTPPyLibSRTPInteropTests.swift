import ParleyTestSupport
import Testing
import ParleySRTP

/// Interop with aiortc's pylibsrtp (a separately built libsrtp) from `.venv`: packets protected here
/// unprotect there and vice versa, for both profiles (RFC 3711 AES-CM, RFC 7714 AES-GCM).
@Suite(.tags(.interop))
struct SRTPPyLibSRTPInteropTests {
    /// The peer must be there: a missing venv fails the suite instead of skipping it.
    @Test func pylibsrtpIsInstalled() {
        #expect(PyLibSRTP.isAvailable, "run scripts/install-deps: .venv with aiortc (pylibsrtp) is required")
    }

    static func material(_ profile: SRTPProfile) -> (ours: [UInt8], oursSalt: [UInt8], theirs: [UInt8], theirsSalt: [UInt8]) {
        ((0..<profile.keyLength).map { UInt8($0 &* 7 &+ 1) }, (0..<profile.saltLength).map { UInt8($0 &* 13 &+ 5) },
         (0..<profile.keyLength).map { UInt8($0 &* 3 &+ 9) }, (0..<profile.saltLength).map { UInt8($0 &* 11 &+ 2) })
    }

    static func context(_ profile: SRTPProfile) throws -> SRTPContext {
        let m = material(profile)
        return try SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: m.ours, localSalt: m.oursSalt,
                                                                  remoteKey: m.theirs, remoteSalt: m.theirsSalt))
    }

    @Test(arguments: SRTPProfile.allCases)
    func swiftProtectsPythonUnprotects(profile: SRTPProfile) throws {
        let context = try Self.context(profile)
        let m = Self.material(profile)
        let packets = (UInt16(100)..<105).map { SRTPFixtures.rtp(sequence: $0, payload: Array(repeating: UInt8($0 & 0xFF), count: 160)) }
        let protected = try packets.map { packet in
            var buffer = SRTPFixtures.buffer(packet)
            let length = try context.protect(&buffer, length: packet.count)
            return Array(buffer[0..<length])
        }
        #expect(try PyLibSRTP.process("unprotect", profile: profile, keyAndSalt: m.ours + m.oursSalt, packets: protected) == packets)

        var rtcp = SRTPFixtures.buffer(SRTPFixtures.rtcp())
        let rtcpLength = try context.protectRTCP(&rtcp, length: SRTPFixtures.rtcp().count)
        #expect(try PyLibSRTP.process("unprotect_rtcp", profile: profile, keyAndSalt: m.ours + m.oursSalt,
                                      packets: [Array(rtcp[0..<rtcpLength])]) == [SRTPFixtures.rtcp()])
    }

    @Test(arguments: SRTPProfile.allCases)
    func pythonProtectsSwiftUnprotects(profile: SRTPProfile) throws {
        let context = try Self.context(profile)
        let m = Self.material(profile)
        let packets = (UInt16(65530)...65535).map { SRTPFixtures.rtp(sequence: $0, ssrc: 0xCAFE_BABE) }
        let protected = try PyLibSRTP.process("protect", profile: profile, keyAndSalt: m.theirs + m.theirsSalt, packets: packets)
        #expect(protected.count == packets.count)
        for (srtp, expected) in zip(protected, packets) {
            var buffer = srtp
            let length = try context.unprotect(&buffer, length: srtp.count)
            #expect(Array(buffer[0..<length]) == expected)
        }
        let srtcp = try PyLibSRTP.process("protect_rtcp", profile: profile, keyAndSalt: m.theirs + m.theirsSalt,
                                          packets: [SRTPFixtures.rtcp()])
        var buffer = srtcp[0]
        let length = try context.unprotectRTCP(&buffer, length: buffer.count)
        #expect(Array(buffer[0..<length]) == SRTPFixtures.rtcp())
    }
}
