import Testing
import ParleySRTP

/// `SRTPContext` (OpenSSL) against `LibSRTPContext` (libsrtp2, the reference): both protect the
/// same packet stream to the same bytes, and each unprotects what the other protected — across
/// CSRCs, header extensions, padding, several SSRCs, sequence-number wrap (ROC 0 → 1), loss,
/// reordering, and SRTCP.
@Suite struct SRTPLibSRTPDifferentialTests {
    static let room = LibSRTPContext.maxRTCPTrailerLength

    static func material(_ profile: SRTPProfile, swapped: Bool = false) -> SRTPKeyingMaterial {
        let a = (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        let b = (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let sa = (0..<profile.saltLength).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ 9) }
        let sb = (0..<profile.saltLength).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 2) }
        return swapped ? SRTPKeyingMaterial(profile: profile, localKey: b, localSalt: sb, remoteKey: a, remoteSalt: sa)
            : SRTPKeyingMaterial(profile: profile, localKey: a, localSalt: sa, remoteKey: b, remoteSalt: sb)
    }

    /// A varied RTP packet: CSRCs and a header extension on some, padding bit on others.
    static func packet(sequence: UInt16, ssrc: UInt32, seed: Int) -> [UInt8] {
        let csrcs = seed % 3, hasExtension = seed % 4 == 1
        var bytes: [UInt8] = [0x80 | UInt8(csrcs) | (hasExtension ? 0x10 : 0), 111, UInt8(sequence >> 8),
                              UInt8(sequence & 0xFF), UInt8(seed & 0xFF), 0, 0x0B, 0xB8,
                              UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
        for c in 0..<csrcs { bytes += [0xC0, 0, 0, UInt8(c)] }
        if hasExtension { bytes += [0xBE, 0xDE, 0, 1, 0x10, 0xAA, 0, 0] }
        bytes += (0..<(20 + seed % 160)).map { UInt8(truncatingIfNeeded: $0 &+ seed) }
        return bytes
    }

    static func run(_ context: some SRTPPacketProtection, _ packet: [UInt8], rtcp: Bool = false,
                    unprotecting: Bool = false) throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: room)
        let length = switch (rtcp, unprotecting) {
        case (false, false): try context.protect(&buffer, length: packet.count)
        case (false, true): try context.unprotect(&buffer, length: packet.count)
        case (true, false): try context.protectRTCP(&buffer, length: packet.count)
        case (true, true): try context.unprotectRTCP(&buffer, length: packet.count)
        }
        return Array(buffer[0..<length])
    }

    /// Sequence numbers across a wrap, with a gap and a reordered pair.
    static let sequences: [UInt16] = Array(65_500...65_535) + [0, 2, 1] + Array(3...40) + [300, 299, 301]

    @Test(arguments: SRTPProfile.allCases)
    func bothImplementationsProduceTheSameSRTP(profile: SRTPProfile) throws {
        let ours = try SRTPContext(keyingMaterial: Self.material(profile))
        let reference = try LibSRTPContext(keyingMaterial: Self.material(profile))
        let ourPeer = try SRTPContext(keyingMaterial: Self.material(profile, swapped: true))
        let referencePeer = try LibSRTPContext(keyingMaterial: Self.material(profile, swapped: true))
        var checked = 0
        for (n, sequence) in Self.sequences.enumerated() {
            for ssrc: UInt32 in [0x0102_0304, 0xCAFE_BABE] {
                let plain = Self.packet(sequence: sequence, ssrc: ssrc, seed: n)
                let protectedByUs = try Self.run(ours, plain)
                #expect(protectedByUs == (try Self.run(reference, plain)), "seq \(sequence) ssrc \(ssrc)")
                #expect(try Self.run(referencePeer, protectedByUs, unprotecting: true) == plain)
                #expect(try Self.run(ourPeer, protectedByUs, unprotecting: true) == plain)
                checked += 1
            }
        }
        #expect(checked == Self.sequences.count * 2)
    }

    @Test(arguments: SRTPProfile.allCases)
    func bothImplementationsProduceTheSameSRTCP(profile: SRTPProfile) throws {
        let ours = try SRTPContext(keyingMaterial: Self.material(profile))
        let reference = try LibSRTPContext(keyingMaterial: Self.material(profile))
        let ourPeer = try SRTPContext(keyingMaterial: Self.material(profile, swapped: true))
        for n in 0..<50 {
            let ssrc: UInt32 = n % 2 == 0 ? 0x0102_0304 : 0xCAFE_BABE
            let plain: [UInt8] = [0x80, 200, 0, 6, UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF),
                                  UInt8(ssrc & 0xFF)] + (0..<(20 + n)).map { UInt8(truncatingIfNeeded: $0 * n) }
            let protectedByUs = try Self.run(ours, plain, rtcp: true)
            #expect(protectedByUs == (try Self.run(reference, plain, rtcp: true)))
            #expect(try Self.run(ourPeer, protectedByUs, rtcp: true, unprotecting: true) == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func weUnprotectWhatLibSRTPProtects(profile: SRTPProfile) throws {
        let reference = try LibSRTPContext(keyingMaterial: Self.material(profile))
        let ourPeer = try SRTPContext(keyingMaterial: Self.material(profile, swapped: true))
        for (n, sequence) in Self.sequences.enumerated() {
            let plain = Self.packet(sequence: sequence, ssrc: 0x5555_0001, seed: n + 7)
            #expect(try Self.run(ourPeer, Self.run(reference, plain), unprotecting: true) == plain)
            let rtcp: [UInt8] = [0x81, 201, 0, 1, 0x55, 0x55, 0, 1] + Array(repeating: UInt8(n), count: 24)
            #expect(try Self.run(ourPeer, Self.run(reference, rtcp, rtcp: true), rtcp: true, unprotecting: true) == rtcp)
        }
    }
}
