import ParleyCore
import ParleyCrypto
import ParleySRTP

/// DTLS-SRTP keying (RFC 5764 §4.2) where DTLS and SRTP meet: the profile the handshake settled on,
/// by its IANA value, names an `SRTPProfile`, and the keys come through the RFC 5705 exporter
/// (`SRTPKeyingMaterialExporter`, defined by ParleySRTP so it never imports DTLS).
public enum DTLSSRTPKeying {
    /// The `use_srtp` profiles to offer (RFC 5764 §4.1.1): every `SRTPProfile`, preferred first.
    public static let protectionProfiles: [UInt16] = SRTPProfile.negotiationOrder.map(\.protectionProfileID)
    /// The first flight's retransmission timer: 100 ms, not RFC 6347's one second, as real-time
    /// endpoints do (RFC 9147 §5.8.2 allows it), so a handshake datagram lost on a lossy path
    /// delays the call's media by a tenth of a second; it doubles per retry (to 60 s) as before.
    public static let initialRetransmissionTimeout: Duration = .milliseconds(100)

    /// The SRTP context of a connected DTLS session: this end's keys protect, the peer's unprotect.
    /// - Throws: 53407 when the handshake negotiated no profile we support, or the export failed.
    public static func context(for dtls: DTLSSession) throws(ParleyError) -> SRTPContext {
        guard let id = dtls.srtpProtectionProfile, let profile = SRTPProfile(protectionProfileID: id) else {
            throw ParleyError(.mediaDtlsTransportFailed, reason: "DTLS negotiated no SRTP profile (use_srtp)")
        }
        let keys = try SRTPKeyingMaterial(exporter: Exporter(dtls: dtls), profile: profile, isClient: dtls.role == .client)
        return try SRTPContext(keyingMaterial: keys)
    }

    /// `DTLSSession`'s exporter, seen as what SRTP asks for.
    struct Exporter: SRTPKeyingMaterialExporter {
        let dtls: DTLSSession

        func exportKeyingMaterial(label: String, length: Int) throws(ParleyError) -> [UInt8] {
            try dtls.exportKeyingMaterial(label: label, length: length)
        }
    }
}
