import Foundation
import ParleyCore
import ParleySRTP

/// `protect` and `unprotect` of one audio-sized RTP packet (12-byte header + 160-byte payload, e.g.
/// 20 ms of G.711) for both profiles, in place, replay protection on, with `SRTPContext` (OpenSSL,
/// what the media path uses) and `LibSRTPContext` (Debian's libsrtp2, the reference); then the
/// cost of a protect + unprotect when 1 or 1,000 sessions are live, visited round-robin as a media
/// loop visits calls.
///
/// - protect: one reused buffer; each packet gets the next sequence number and timestamp written
///   into its header first (libsrtp refuses a repeated index unless retransmission is allowed, and
///   a fresh index is what a real sender does). The payload is re-encrypted ciphertext, which costs
///   the same as plaintext.
/// - unprotect: a ring of packets protected beforehand (untimed) with increasing sequence numbers
///   by a sender context, unprotected in order by a receiver context with the same keys; when the
///   ring is used up it is refilled, untimed, with the following sequence numbers.
enum SRTPBench {
    static let headerBytes = 12
    static let payloadBytes = 160
    static var packetBytes: Int { headerBytes + payloadBytes }

    static func run(seconds: Double = 1.5) throws {
        print("# SRTP (one thread, \(headerBytes)+\(payloadBytes)-byte RTP packet, in place)")
        for implementation in Implementation.allCases {
            for profile in [SRTPProfile.aes128CMHMACSHA1_80, .aeadAES128GCM] {
                let name = "\(implementation) " + (profile == .aes128CMHMACSHA1_80 ? "AES_CM_128_HMAC_SHA1_80" : "AEAD_AES_128_GCM")
                report("protect \(name)", nanoseconds: try protectCost(try contexts(profile, implementation).0, seconds: seconds))
                // Fresh contexts: the receiver must see the sender's stream from its first packet (same rollover counter).
                let (sender, receiver) = try contexts(profile, implementation)
                report("unprotect \(name)", nanoseconds: try unprotectCost(sender: sender, receiver: receiver,
                                                                           seconds: seconds))
            }
        }
        print("# protect + unprotect, AES_CM_128_HMAC_SHA1_80, live sessions visited round-robin")
        for implementation in Implementation.allCases {
            for sessions in [1, 1000] {
                let cost = try liveSessionsCost(implementation, sessions: sessions, seconds: seconds)
                report("\(implementation), \(sessions) live", nanoseconds: cost)
            }
        }
    }

    enum Implementation: CaseIterable, CustomStringConvertible {
        case openSSL, libsrtp2
        var description: String { self == .openSSL ? "SRTPContext (OpenSSL)" : "LibSRTPContext (libsrtp2)" }
    }

    /// A sending context and a receiving one whose remote keys are the sender's local keys.
    static func contexts(_ profile: SRTPProfile, _ implementation: Implementation = .openSSL)
        throws -> (any SRTPPacketProtection, any SRTPPacketProtection) {
        let keyA = bytes(profile.keyLength, seed: 1), saltA = bytes(profile.saltLength, seed: 2)
        let keyB = bytes(profile.keyLength, seed: 3), saltB = bytes(profile.saltLength, seed: 4)
        let sending = SRTPKeyingMaterial(profile: profile, localKey: keyA, localSalt: saltA, remoteKey: keyB, remoteSalt: saltB)
        let receiving = SRTPKeyingMaterial(profile: profile, localKey: keyB, localSalt: saltB, remoteKey: keyA, remoteSalt: saltA)
        switch implementation {
        case .openSSL: return (try SRTPContext(keyingMaterial: sending), try SRTPContext(keyingMaterial: receiving))
        case .libsrtp2: return (try LibSRTPContext(keyingMaterial: sending), try LibSRTPContext(keyingMaterial: receiving))
        }
    }

    /// ns per protect + unprotect with `sessions` sender/receiver pairs, one packet each in turn.
    private static func liveSessionsCost(_ implementation: Implementation, sessions: Int, seconds: Double) throws -> Double {
        let pairs = try (0..<sessions).map { _ in try contexts(.aes128CMHMACSHA1_80, implementation) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: packetBytes + LibSRTPContext.maxTrailerLength,
                                                            alignment: 16)
        defer { buffer.deallocate() }
        var sequence: UInt16 = 0, failures = 0, packets = 0
        let clock = ContinuousClock(), start = clock.now
        var elapsed = Duration.zero
        while elapsed < .milliseconds(Int64(seconds * 1000)) {
            sequence &+= 1
            for (sender, receiver) in pairs {
                writePacket(buffer, sequence: sequence, timestamp: UInt32(sequence) &* 160)
                do {
                    let length = try sender.protect(buffer, length: packetBytes)
                    _ = try receiver.unprotect(buffer, length: length)
                } catch { failures += 1 }
            }
            packets += sessions
            elapsed = clock.now - start
        }
        if failures > 0 { print("  (\(failures) failures)") }
        return elapsed.nanoseconds / Double(packets)
    }

    private static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: Int(seed) &* 37 &+ $0 &* 11) }
    }

    /// Writes a plain RTP header (V=2, PT 0, SSRC 0x5EED0001) and a patterned payload.
    static func writePacket(_ buffer: UnsafeMutableRawBufferPointer, sequence: UInt16, timestamp: UInt32) {
        writeHeader(buffer, sequence: sequence, timestamp: timestamp)
        for i in 0..<payloadBytes { buffer[headerBytes + i] = UInt8(truncatingIfNeeded: i) }
    }

    @inline(__always)
    static func writeHeader(_ buffer: UnsafeMutableRawBufferPointer, sequence: UInt16, timestamp: UInt32) {
        buffer[0] = 0x80
        buffer[1] = 0
        buffer.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: UInt32(0x5EED_0001).bigEndian, toByteOffset: 8, as: UInt32.self)
    }

    private static func protectCost(_ sender: any SRTPPacketProtection, seconds: Double) throws -> Double {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: packetBytes + LibSRTPContext.maxTrailerLength,
                                                            alignment: 16)
        defer { buffer.deallocate() }
        writePacket(buffer, sequence: 0, timestamp: 0)
        var sequence: UInt16 = 0, timestamp: UInt32 = 0
        var failures = 0
        let clock = ContinuousClock()
        var packets = 0
        var elapsed = Duration.zero
        let start = clock.now
        while elapsed < .milliseconds(Int64(seconds * 1000)) {
            for _ in 0..<4096 {
                sequence &+= 1
                timestamp &+= 160
                writeHeader(buffer, sequence: sequence, timestamp: timestamp)
                do { _ = try sender.protect(buffer, length: packetBytes) } catch { failures += 1 }
            }
            packets += 4096
            elapsed = clock.now - start
        }
        if failures > 0 { print("  (\(failures) protect failures)") }
        return elapsed.nanoseconds / Double(packets)
    }

    private static func unprotectCost(sender: any SRTPPacketProtection, receiver: any SRTPPacketProtection, seconds: Double) throws -> Double {
        let ring = 4096, slot = 512   // packet + maxTrailerLength room
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: ring * slot, alignment: 16)
        defer { storage.deallocate() }
        var lengths = [Int](repeating: 0, count: ring)
        var sequence: UInt16 = 0, timestamp: UInt32 = 0
        func packet(_ i: Int) -> UnsafeMutableRawBufferPointer {
            UnsafeMutableRawBufferPointer(rebasing: storage[(i * slot)..<((i + 1) * slot)])
        }
        func refill() throws {
            for i in 0..<ring {
                sequence &+= 1
                timestamp &+= 160
                writePacket(packet(i), sequence: sequence, timestamp: timestamp)
                lengths[i] = try sender.protect(packet(i), length: packetBytes)
            }
        }
        let clock = ContinuousClock()
        var timed = Duration.zero, packets = 0, failures = 0
        var first = true
        while timed < .milliseconds(Int64(seconds * 1000)) {
            try refill()
            let start = clock.now
            for i in 0..<ring {
                do { _ = try receiver.unprotect(packet(i), length: lengths[i]) } catch { failures += 1 }
            }
            let took = clock.now - start
            if first { first = false; continue }   // warm-up round
            timed += took
            packets += ring
        }
        if failures > 0 { print("  (\(failures) unprotect failures: replay or authentication)") }
        return timed.nanoseconds / Double(packets)
    }

    private static func report(_ name: String, nanoseconds: Double) {
        let rate = 1e9 / nanoseconds
        print("\(name.padding(toLength: 60, withPad: " ", startingAt: 0)) \(format(rate)) packets/s  "
              + "\(String(format: "%.0f", nanoseconds)) ns/packet")
    }
}

extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}
