import Testing
import ParleySRTP

/// Protect/unprotect behaviour of `SRTPContext` (RFC 3711 §3.3–3.4, RFC 7714) for both profiles.
@Suite struct SRTPContextTests {
    /// Two endpoints with mirrored keys, as DTLS-SRTP produces them.
    static func pair(_ profile: SRTPProfile) throws -> (alice: SRTPContext, bob: SRTPContext) {
        let k1 = [UInt8](repeating: 0x11, count: profile.keyLength), s1 = [UInt8](repeating: 0x22, count: profile.saltLength)
        let k2 = [UInt8](repeating: 0x33, count: profile.keyLength), s2 = [UInt8](repeating: 0x44, count: profile.saltLength)
        let alice = try SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: k1, localSalt: s1,
                                                                       remoteKey: k2, remoteSalt: s2))
        let bob = try SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: k2, localSalt: s2,
                                                                     remoteKey: k1, remoteSalt: s1))
        return (alice, bob)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtpRoundTripInPlace(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        var buffer = [UInt8](repeating: 0, count: 1500)  // reused for every packet
        for sequence in UInt16(1)...200 {
            for ssrc: UInt32 in [0x1111_1111, 0x2222_2222] {
                let packet = SRTPFixtures.rtp(sequence: sequence, ssrc: ssrc)
                buffer.replaceSubrange(0..<packet.count, with: packet)
                let protected = try alice.protect(&buffer, length: packet.count)
                #expect(protected == packet.count + (profile == .aeadAES128GCM ? 16 : 10))
                #expect(Array(buffer[12..<packet.count]) != Array(packet[12...]))  // payload encrypted
                let plain = try bob.unprotect(&buffer, length: protected)
                #expect(Array(buffer[0..<plain]) == packet)
            }
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func replayedPacketIsRejected(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        var buffer = SRTPFixtures.buffer(SRTPFixtures.rtp(sequence: 7))
        let length = try alice.protect(&buffer, length: SRTPFixtures.rtp(sequence: 7).count)
        var first = Array(buffer[0..<length]), second = first
        _ = try bob.unprotect(&first, length: length)
        #expect(throws: SRTPError.replayFailed) { try bob.unprotect(&second, length: length) }
    }

    @Test func packetOlderThanTheWindowIsRejected() throws {
        let (alice, bob) = try Self.pair(.aes128CMHMACSHA1_80)
        func protect(_ sequence: UInt16) throws -> [UInt8] {
            let packet = SRTPFixtures.rtp(sequence: sequence)
            var buffer = SRTPFixtures.buffer(packet)
            let length = try alice.protect(&buffer, length: packet.count)
            return Array(buffer[0..<length])
        }
        var old = try protect(1)
        var late = try protect(3000)  // 3000 - 1 > the 1024-packet window
        _ = try bob.unprotect(&late, length: late.count)
        #expect(throws: SRTPError.replayOld) { try bob.unprotect(&old, length: old.count) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedPacketFailsAuthentication(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        let packet = SRTPFixtures.rtp(sequence: 9)
        var buffer = SRTPFixtures.buffer(packet)
        let length = try alice.protect(&buffer, length: packet.count)
        for index in [length - 1, 20, 3] {  // tag, payload, header (sequence number)
            var tampered = Array(buffer[0..<length])
            tampered[index] ^= 0x01
            #expect(throws: SRTPError.authenticationFailed) { try bob.unprotect(&tampered, length: length) }
        }
        var intact = Array(buffer[0..<length])
        #expect(try bob.unprotect(&intact, length: length) == packet.count)  // failures left no state behind
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpRoundTripAndReplay(profile: SRTPProfile) throws {
        let (alice, bob) = try Self.pair(profile)
        let packet = SRTPFixtures.rtcp()
        for _ in 0..<3 {
            var buffer = SRTPFixtures.buffer(packet)
            let length = try alice.protectRTCP(&buffer, length: packet.count)
            var copy = Array(buffer[0..<length])
            let plain = try bob.unprotectRTCP(&buffer, length: length)
            #expect(Array(buffer[0..<plain]) == packet)
            #expect(throws: SRTPError.replayFailed) { try bob.unprotectRTCP(&copy, length: length) }
        }
    }

    @Test func tooLittleSpareRoomIsRefusedNotOverrun() throws {
        let (alice, _) = try Self.pair(.aes128CMHMACSHA1_80)
        var exact = SRTPFixtures.rtp(sequence: 1)
        #expect(throws: SRTPError.bufferTooSmall(needed: exact.count + SRTPContext.maxTrailerLength)) {
            try alice.protect(&exact, length: exact.count)
        }
        var rtcp = SRTPFixtures.rtcp()
        #expect(throws: SRTPError.bufferTooSmall(needed: rtcp.count + SRTPContext.maxRTCPTrailerLength)) {
            try alice.protectRTCP(&rtcp, length: rtcp.count)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func garbageIsRejectedWithoutCrashing(profile: SRTPProfile) throws {
        let (_, bob) = try Self.pair(profile)
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 4, 11, 12, 13, 20, 22, 40, 200] {
            for _ in 0..<20 {
                var junk = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if length > 0 { junk[0] = 0x80 | (junk[0] & 0x3F) }
                #expect(throws: SRTPError.self) { try bob.unprotect(&junk, length: length) }
                #expect(throws: SRTPError.self) { try bob.unprotectRTCP(&junk, length: length) }
            }
        }
        var short = [UInt8](repeating: 0, count: 4)
        #expect(throws: SRTPError.badParameter) { try bob.unprotect(&short, length: 8) }  // length > buffer
    }

    @Test func wrongKeyLengthIsRefused() {
        #expect(throws: (any Error).self) {
            try SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: .aeadAES128GCM, localKey: [1], localSalt: [],
                                                               remoteKey: [], remoteSalt: []))
        }
    }
}
