import CSRTP
import ParleyCore

/// The same SRTP/SRTCP session as `SRTPContext`, over libsrtp2 (RFC 3711; AES-GCM per RFC 7714):
/// an outbound stream template that protects whatever SSRC this endpoint sends, and an inbound one
/// that unprotects whatever SSRC the peer sends (`ssrc_any_outbound` / `ssrc_any_inbound`).
///
/// Kept as the reference implementation: tests check `SRTPContext` against it packet for packet,
/// and `parley-bench srtp` compares the two. The media path uses `SRTPContext`, because Debian's
/// libsrtp2 does its AES and HMAC in NSS, whose cost per packet grows with the number of live
/// sessions (1.6 µs with one, 9.2 µs with 1,000 on the 2-core bench machine).
///
/// Works in place like `SRTPContext`, but needs `maxTrailerLength` (`SRTP_MAX_TRAILER_LEN`) spare
/// bytes. Not thread-safe: one thread at a time.
public final class LibSRTPContext: SRTPPacketProtection {
    /// Bytes `protect` may append (`SRTP_MAX_TRAILER_LEN`: tag plus MKI).
    public static let maxTrailerLength = 16 + 128
    /// Bytes `protectRTCP` may append (`SRTP_MAX_SRTCP_TRAILER_LEN`: index, tag, MKI).
    public static let maxRTCPTrailerLength = 4 + 16 + 128

    public let profile: SRTPProfile
    private let sender: OpaquePointer    // srtp_t with the ssrc_any_outbound template
    private let receiver: OpaquePointer  // srtp_t with the ssrc_any_inbound template

    /// Creates a session from directional master keys.
    /// - Parameters:
    ///   - keyingMaterial: keys and salts, e.g. from `SRTPKeyingMaterial(exporter:profile:isClient:)`.
    ///   - replayWindow: replay window size for inbound streams, 64...32767 (libsrtp limit).
    public init(keyingMaterial m: SRTPKeyingMaterial, replayWindow: Int = SRTPContext.defaultReplayWindow)
        throws(ParleyError) {
        try SRTPLibrary.initialize()
        guard m.localKey.count == m.profile.keyLength, m.remoteKey.count == m.profile.keyLength,
              m.localSalt.count == m.profile.saltLength, m.remoteSalt.count == m.profile.saltLength else {
            throw ParleyError(.mediaConnection, reason: "SRTP key or salt has the wrong length for \(m.profile)")
        }
        guard (64..<0x8000).contains(replayWindow) else {
            throw ParleyError(.mediaConnection, reason: "SRTP replay window \(replayWindow) outside 64...32767")
        }
        var inboundKey = m.remoteKey + m.remoteSalt
        var outboundKey = m.localKey + m.localSalt
        defer {  // best effort: do not leave master keys in these copies
            for i in inboundKey.indices { inboundKey[i] = 0 }
            for i in outboundKey.indices { outboundKey[i] = 0 }
        }
        // libsrtp keeps one wildcard template per srtp_t, so each direction gets its own session
        // (as aiortc does): `ssrc_any_inbound` for unprotect, `ssrc_any_outbound` for protect.
        let receiver = try inboundKey.withUnsafeMutableBufferPointer { (key) throws(ParleyError) in
            var policy = Self.policy(m.profile, key: key.baseAddress, type: ssrc_any_inbound, window: replayWindow)
            return try Self.create(&policy)
        }
        do {
            sender = try outboundKey.withUnsafeMutableBufferPointer { (key) throws(ParleyError) in
                var policy = Self.policy(m.profile, key: key.baseAddress, type: ssrc_any_outbound, window: replayWindow)
                // Retransmissions (NACK without RTX) may resend a sequence number with the same payload.
                policy.allow_repeat_tx = 1
                return try Self.create(&policy)
            }
        } catch {
            srtp_dealloc(receiver)
            throw error
        }
        self.receiver = receiver
        profile = m.profile
    }

    private static func create(_ policy: inout srtp_policy_t) throws(ParleyError) -> OpaquePointer {
        var created: srtp_t?
        let status = srtp_create(&created, &policy)
        guard status == srtp_err_status_ok, let created else {
            throw ParleyError(.mediaConnection, reason: "srtp_create failed: \(SRTPError(status: status))")
        }
        return created
    }

    deinit {
        srtp_dealloc(sender)
        srtp_dealloc(receiver)
    }

    /// Protects the RTP packet in `buffer[0..<length]` in place (RFC 3711 §3.3) and returns the new
    /// length. Needs `length + maxTrailerLength <= buffer.count`.
    public func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(sender, buffer, length: length, minimum: 12, trailer: Self.maxTrailerLength, srtp_protect)
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` in place (RFC 3711 §3.4) and
    /// returns the RTP length. Throws on replay or authentication failure.
    public func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(receiver, buffer, length: length, minimum: 12, trailer: 0, srtp_unprotect)
    }

    /// Protects the compound RTCP packet in `buffer[0..<length]` in place (RFC 3711 §3.4) and returns
    /// the new length. Needs `length + maxRTCPTrailerLength <= buffer.count`.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(sender, buffer, length: length, minimum: 8, trailer: Self.maxRTCPTrailerLength, srtp_protect_rtcp)
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` in place and returns the RTCP length.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try run(receiver, buffer, length: length, minimum: 8, trailer: 0, srtp_unprotect_rtcp)
    }

    private func run(_ session: OpaquePointer, _ buffer: UnsafeMutableRawBufferPointer, length: Int, minimum: Int, trailer: Int,
                     _ operation: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t)
        throws(SRTPError) -> Int {
        guard length >= minimum, length <= buffer.count, length <= Int(Int32.max) - trailer else {
            throw .badParameter
        }
        guard length + trailer <= buffer.count else { throw .bufferTooSmall(needed: length + trailer) }
        var size = Int32(length)
        let status = operation(session, buffer.baseAddress, &size)
        guard status == srtp_err_status_ok else { throw SRTPError(status: status) }
        return Int(size)
    }

    private static func policy(_ profile: SRTPProfile, key: UnsafeMutablePointer<UInt8>?, type: srtp_ssrc_type_t,
                               window: Int) -> srtp_policy_t {
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CMHMACSHA1_80:
            // `srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80` is a macro for these defaults.
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc = srtp_ssrc_t(type: type, value: 0)
        policy.key = key
        policy.window_size = UInt(window)
        return policy
    }
}
