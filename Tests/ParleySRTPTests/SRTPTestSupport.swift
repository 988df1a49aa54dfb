import Foundation
import ParleyCore
import ParleySRTP

/// Hex helpers and fixed keys shared by the SRTP tests.
enum SRTPFixtures {
    static func bytes(_ hex: String) -> [UInt8] {
        let chars = Array(hex.utf8.filter { $0 != UInt8(ascii: " ") })
        return stride(from: 0, to: chars.count, by: 2).map { UInt8(String(decoding: chars[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// A context whose inbound and outbound keys are the same, so it can unprotect what it protects.
    static func loopback(_ profile: SRTPProfile, key: [UInt8], salt: [UInt8]) throws -> SRTPContext {
        try SRTPContext(keyingMaterial: SRTPKeyingMaterial(profile: profile, localKey: key, localSalt: salt,
                                                           remoteKey: key, remoteSalt: salt))
    }

    /// `packet` copied into a buffer with room for the largest trailer.
    static func buffer(_ packet: [UInt8]) -> [UInt8] {
        packet + [UInt8](repeating: 0, count: SRTPContext.maxRTCPTrailerLength)
    }

    /// An RTP packet: version 2, payload type 111, the given sequence number and SSRC.
    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x1234_5678, payload: [UInt8] = Array(0..<40)) -> [UInt8] {
        [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x0B, 0xB8,
         UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)] + payload
    }

    /// An RTCP receiver report with no report blocks, then an SDES-ish filler (compound).
    static func rtcp(ssrc: UInt32 = 0x1234_5678) -> [UInt8] {
        [0x80, 201, 0x00, 0x01, UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF),
         UInt8(ssrc & 0xFF)] + [0x81, 202, 0x00, 0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0x01, 0x02, 0x03, 0x04]
    }
}

/// Runs aiortc's `pylibsrtp` (its own bundled libsrtp build) from the package's `.venv`.
enum PyLibSRTP {
    static let python: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".venv/bin/python")

    static let isAvailable: Bool = {
        FileManager.default.isExecutableFile(atPath: python.path) && (try? run("import pylibsrtp", [])) != nil
    }()

    /// Protects (`protect`, `protect_rtcp`) or unprotects packets with pylibsrtp; returns output hex lines.
    static func process(_ operation: String, profile: SRTPProfile, keyAndSalt: [UInt8], packets: [[UInt8]]) throws -> [[UInt8]] {
        let script = """
        import sys
        from pylibsrtp import Policy, Session
        op, prof, key = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
        profile = Policy.SRTP_PROFILE_AEAD_AES_128_GCM if prof == "gcm" else Policy.SRTP_PROFILE_AES128_CM_SHA1_80
        kind = Policy.SSRC_ANY_INBOUND if op.startswith("unprotect") else Policy.SSRC_ANY_OUTBOUND
        s = Session(Policy(key=key, ssrc_type=kind, srtp_profile=profile))
        for p in sys.argv[4:]:
            print(getattr(s, op)(bytes.fromhex(p)).hex())
        """
        let args = [operation, profile == .aeadAES128GCM ? "gcm" : "cm", SRTPFixtures.hex(keyAndSalt)]
            + packets.map { SRTPFixtures.hex($0) }
        return try run(script, args).split(separator: "\n").map { SRTPFixtures.bytes(String($0)) }
    }

    private static func run(_ script: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return String(decoding: data, as: UTF8.self)
    }
}
