import COpenSSL
import ParleyCore

/// One SRTP/SRTCP session (RFC 3711; AES-GCM per RFC 7714) with its crypto on OpenSSL: an outbound
/// direction that protects whatever SSRC this endpoint sends, and an inbound one that unprotects
/// whatever SSRC the peer sends, each SSRC with its own rollover counter and replay window. Crypto
/// only, no I/O (pion/srtp `context.go`).
///
/// All four packet calls work in place on a caller-owned buffer and allocate nothing once an SSRC
/// is known. `protect` grows the packet by its trailer, so the buffer needs `maxTrailerLength`
/// (RTP) or `maxRTCPTrailerLength` (RTCP) spare bytes after the packet. An inbound SSRC gets its
/// state only after a packet of it authenticates, so forged packets cannot fill the table.
///
/// Not thread-safe, and no locks on the packet path: a context is used by one thread at a time.
public final class SRTPContext: SRTPPacketProtection {
    /// Bytes `protect` may append: the 16-byte GCM tag (AES-CM appends 10). No MKI.
    public static let maxTrailerLength = 16
    /// Bytes `protectRTCP` may append: SRTCP index and a 16-byte GCM tag.
    public static let maxRTCPTrailerLength = 4 + 16
    /// Default replay window in packets (RFC 3711 §3.3.2 asks for at least 64).
    public static let defaultReplayWindow = 1024
    /// Authentication tag of AES-CM with HMAC-SHA1-80 (RFC 3711 §5.2).
    static let cmTagLength = 10

    public let profile: SRTPProfile
    let outbound: SRTPDirectionCrypto
    let inbound: SRTPDirectionCrypto
    var sent: SRTPStreamTable
    var received: SRTPStreamTable

    /// Creates a session from directional master keys.
    /// - Parameters:
    ///   - keyingMaterial: keys and salts, e.g. from `SRTPKeyingMaterial(exporter:profile:isClient:)`.
    ///   - replayWindow: replay window size for inbound RTP, 64...32767 packets.
    public init(keyingMaterial m: SRTPKeyingMaterial, replayWindow: Int = SRTPContext.defaultReplayWindow)
        throws(ParleyError) {
        guard m.localKey.count == m.profile.keyLength, m.remoteKey.count == m.profile.keyLength,
              m.localSalt.count == m.profile.saltLength, m.remoteSalt.count == m.profile.saltLength else {
            throw ParleyError(.mediaConnection, reason: "SRTP key or salt has the wrong length for \(m.profile)")
        }
        guard (64..<0x8000).contains(replayWindow) else {
            throw ParleyError(.mediaConnection, reason: "SRTP replay window \(replayWindow) outside 64...32767")
        }
        profile = m.profile
        outbound = try SRTPDirectionCrypto(profile: m.profile, masterKey: m.localKey, masterSalt: m.localSalt)
        inbound = try SRTPDirectionCrypto(profile: m.profile, masterKey: m.remoteKey, masterSalt: m.remoteSalt)
        sent = SRTPStreamTable(rtpWindowSize: 0)
        received = SRTPStreamTable(rtpWindowSize: replayWindow)
    }

    /// Checks `length` against the buffer and the room the trailer needs.
    func validate(_ buffer: UnsafeMutableRawBufferPointer, length: Int, minimum: Int, trailer: Int) throws(SRTPError) {
        guard length >= minimum, length <= buffer.count, buffer.baseAddress != nil else { throw .badParameter }
        guard length + trailer <= buffer.count else { throw .bufferTooSmall(needed: length + trailer) }
    }
}

/// The keys and cipher contexts of one direction of a session.
final class SRTPDirectionCrypto {
    let rtpSalt: [UInt8]
    let rtcpSalt: [UInt8]
    /// AES-CM profile: counter-mode ciphers and HMAC-SHA1 (RFC 3711 §4.1.1, §4.2.1).
    let rtpCounter: AESCounterMode?
    let rtcpCounter: AESCounterMode?
    let rtpAuthentication: HMACSHA1?
    let rtcpAuthentication: HMACSHA1?
    /// AEAD profile (RFC 7714).
    let rtpGCM: AESGCM?
    let rtcpGCM: AESGCM?

    init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8]) throws(ParleyError) {
        var keys = try SRTPSessionKeys(profile: profile, masterKey: masterKey, masterSalt: masterSalt)
        defer { keys.erase() }
        rtpSalt = keys.rtpSalt
        rtcpSalt = keys.rtcpSalt
        switch profile {
        case .aes128CMHMACSHA1_80:
            rtpCounter = try AESCounterMode(key: keys.rtpCipherKey)
            rtcpCounter = try AESCounterMode(key: keys.rtcpCipherKey)
            rtpAuthentication = HMACSHA1(key: keys.rtpAuthenticationKey)
            rtcpAuthentication = HMACSHA1(key: keys.rtcpAuthenticationKey)
            rtpGCM = nil
            rtcpGCM = nil
        case .aeadAES128GCM:
            rtpGCM = try AESGCM(key: keys.rtpCipherKey)
            rtcpGCM = try AESGCM(key: keys.rtcpCipherKey)
            rtpCounter = nil
            rtcpCounter = nil
            rtpAuthentication = nil
            rtcpAuthentication = nil
        }
    }
}
