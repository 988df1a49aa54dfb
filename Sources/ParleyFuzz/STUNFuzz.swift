import STUN

/// Feeds arbitrary bytes to the STUN message parser, the TURN ChannelData parser, the integrity and
/// fingerprint checks and the RFC 7983 demultiplexer. Whatever parses must serialize, and the
/// serialized bytes must parse back to the same value (the pion/stun `fuzz.go` round-trip bar).
enum STUNFuzz {
    /// A stand-in HMAC: deterministic, cheap, 32 bytes (so it serves as SHA-1 and SHA-256 length).
    /// The fuzzer exercises the length-field rewriting and comparison, not the cryptography.
    private static let fakeHMAC: HMACFunction = { key, message in
        var acc = UInt8(truncatingIfNeeded: key.count)
        for b in message { acc = acc &* 31 &+ b }
        return [UInt8](repeating: acc, count: 32)
    }

    static func run(_ data: UnsafeRawBufferPointer) {
        _ = PacketKind.classify(data)
        _ = PacketKind.isRTCP(data)
        _ = STUNMessage.looksLikeSTUN(data)
        _ = STUNMessage.frameLength(data)
        _ = ChannelData.frameLength(data)

        if let message = try? STUNMessage(parsing: data) {
            roundTrip(message)
            let sha1 = STUNIntegrity.sha1(key: [1, 2, 3], hmac: fakeHMAC)
            let sha256 = STUNIntegrity.sha256(key: [1, 2, 3], hmac: fakeHMAC)
            _ = try? STUNMessage.verifyIntegrity(of: data, using: sha1)
            _ = try? STUNMessage.verifyIntegrity(of: data, using: sha256)
            _ = try? STUNMessage.verifyFingerprint(of: data)
            // Re-signing what parsed must give a message that parses and checks out.
            if let signed = try? message.serialized(integrity: sha1, fingerprint: true) {
                let ok = signed.withUnsafeBytes { bytes in
                    (try? STUNMessage.verifyIntegrity(of: bytes, using: sha1)) == .valid
                        && (try? STUNMessage.verifyFingerprint(of: bytes)) == .valid
                }
                precondition(ok, "STUN: a re-signed message does not verify")
            }
        }

        if let channelData = try? ChannelData(parsing: data) {
            for padded in [false, true] {
                guard let bytes = try? channelData.serialized(padded: padded) else {
                    preconditionFailure("ChannelData: a parsed message does not serialize")
                }
                precondition((try? ChannelData(parsing: bytes)) == channelData, "ChannelData: round trip changed the value")
            }
        }
    }

    private static func roundTrip(_ message: STUNMessage) {
        guard let bytes = try? message.serialized() else {
            preconditionFailure("STUN: a parsed message does not serialize")
        }
        precondition(bytes.count == message.serializedSize, "STUN: serializedSize disagrees with serialize")
        precondition((try? STUNMessage(parsing: bytes)) == message, "STUN: round trip changed the value")
    }
}
