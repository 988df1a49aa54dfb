import ParleySRTP

/// Feeds a sequence of packets (each a 2-byte big-endian length, then the bytes) through one SRTP
/// session of the profile the first byte picks: every packet is unprotected as received (forged:
/// must fail cleanly), then protected by the sender and unprotected by the receiver, which — when
/// it accepts — must give back the exact plaintext. RTCP-looking packets go through SRTCP.
enum SRTPFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let first = data.first else { return }
        let profile: SRTPProfile = first & 1 == 0 ? .aes128CMHMACSHA1_80 : .aeadAES128GCM
        let a = [UInt8](repeating: 0x11, count: profile.keyLength), sa = [UInt8](repeating: 0x22, count: profile.saltLength)
        let b = [UInt8](repeating: 0x33, count: profile.keyLength), sb = [UInt8](repeating: 0x44, count: profile.saltLength)
        guard let sender = try? SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: a, localSalt: sa,
                                                                               remoteKey: b, remoteSalt: sb)),
              let receiver = try? SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: b, localSalt: sb,
                                                                                 remoteKey: a, remoteSalt: sa))
        else { preconditionFailure("SRTP contexts with valid keys must be created") }
        var offset = 1
        var buffer = [UInt8](repeating: 0, count: 2048)
        while offset + 2 <= data.count {
            let length = min(Int(data[offset]) << 8 | Int(data[offset + 1]), data.count - offset - 2, 2000)
            let packet = Array(data[(offset + 2)..<(offset + 2 + length)])
            offset += 2 + length
            let isRTCP = packet.count > 1 && (192...223).contains(packet[1])
            buffer.replaceSubrange(0..<packet.count, with: packet)
            _ = try? (isRTCP ? receiver.unprotectRTCP(&buffer, length: packet.count) : receiver.unprotect(&buffer, length: packet.count))
            buffer.replaceSubrange(0..<packet.count, with: packet)
            guard let sealed = try? (isRTCP ? sender.protectRTCP(&buffer, length: packet.count)
                                            : sender.protect(&buffer, length: packet.count)) else { continue }
            guard let opened = try? (isRTCP ? receiver.unprotectRTCP(&buffer, length: sealed)
                                            : receiver.unprotect(&buffer, length: sealed)) else { continue }
            precondition(Array(buffer[0..<opened]) == packet, "SRTP round trip changed the packet")
        }
    }
}
