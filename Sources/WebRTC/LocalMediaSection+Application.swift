import ICE
import ParleyCrypto
import SDP

extension LocalMediaSection {
    /// The answer's data channel section (RFC 8841 §4, §5, §6): the offer's proto and
    /// `webrtc-datachannel`, our transport lines, `a=sctp-port` and `a=max-message-size`; no
    /// direction or rtcp-mux (they do not apply to SCTP, RFC 8841 §4.1).
    static func application(_ offered: OfferedApplication, _ transport: Transport) -> MediaDescription {
        application(mid: offered.mid, proto: offered.proto, transport)
    }

    /// A data channel section of ours, in an offer or an answer.
    static func application(mid: String?, proto: String = "UDP/DTLS/SCTP", _ transport: Transport) -> MediaDescription {
        var media = MediaDescription(mediaType: "application", port: transport.port, proto: proto,
                                     formats: ["webrtc-datachannel"],
                                     connections: [SDPConnection(addressType: transport.isIPv4 ? "IP4" : "IP6",
                                                                 address: transport.address)])
        var a: [SDPAttribute] = []
        if let mid { a.append(SDPAttribute(.mid(mid))) }
        a.append(SDPAttribute(.iceUfrag(transport.credentials.ufrag)))
        a.append(SDPAttribute(.icePwd(transport.credentials.pwd)))
        a.append(SDPAttribute(.fingerprint(SDPFingerprint(hashFunction: transport.fingerprint.algorithm.rawValue,
                                                          bytes: transport.fingerprint.digest))))
        a.append(SDPAttribute(.setup(transport.setup)))
        a.append(SDPAttribute(.sctpPort(OfferedApplication.localPort)))
        a.append(SDPAttribute(.maxMessageSize(UInt64(OfferedApplication.localMaxMessageSize))))
        a += transport.candidates
        a.append(SDPAttribute(.endOfCandidates))
        media.attributes = a
        return media
    }
}
