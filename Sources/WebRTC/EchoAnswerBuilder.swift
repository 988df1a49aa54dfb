import ICE
import ParleyCrypto
import SDP

/// Builds the SDP answer of a server-side session (RFC 8829 §5.3, RFC 8839 for ICE-lite): one
/// accepted audio section, every other section rejected with port 0.
public struct AnswerParameters: Sendable {
    public var localCredentials: ICECredentials
    public var fingerprint: DTLSFingerprint
    /// Where the shared media socket is reachable: one host candidate each (RFC 8445 §5.1.1.1).
    public var candidates: [ICETransportAddress]
    /// The SSRC of the stream we send back.
    public var ssrc: UInt32
    public var cname: String
    public var streamID: String
    public var trackID: String
    public var sessionID: UInt64
    /// The `o=` version: 2 in the first answer, incremented in each later one (RFC 3264 §8).
    public var sessionVersion: UInt64 = 2
    /// Accept the offer's `telephone-event` at the codec's clock rate (RFC 4733), for call sessions.
    public var telephoneEvent = false

    public init(localCredentials: ICECredentials, fingerprint: DTLSFingerprint, candidates: [ICETransportAddress],
                ssrc: UInt32, cname: String, streamID: String = "parley-echo", trackID: String = "echo-audio",
                sessionID: UInt64) {
        self.localCredentials = localCredentials
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.ssrc = ssrc
        self.cname = cname
        self.streamID = streamID
        self.trackID = trackID
        self.sessionID = sessionID
    }
}

public enum EchoAnswerBuilder {
    /// The answer to `offer`: `a=ice-lite`, our credentials and sha-256 fingerprint,
    /// `a=setup:passive` (or `active` if the offerer insisted on `passive`), rtcp-mux, the offer's
    /// mid, its Opus payload type (or PCMU/PCMA), sendrecv, our msid/ssrc, host candidates and
    /// `a=end-of-candidates` (ICE-lite gathers everything up front). With `p.telephoneEvent`, the
    /// offered `telephone-event` at the codec's rate is accepted too. `dtlsRole` keeps an existing
    /// session's role in a later answer (RFC 8842 §5.5); by default it follows the offer's setup.
    public static func answer(to offer: AudioOffer, parameters p: AnswerParameters,
                              dtlsRole: DTLSRole? = nil) -> SessionDescription {
        let first = p.candidates.first
        let addressType = first.map { $0.isIPv4 ? "IP4" : "IP6" } ?? "IP4"
        let address = first?.ipString ?? "0.0.0.0"
        var session = SessionDescription(
            origin: SDPOrigin(sessionID: p.sessionID, sessionVersion: p.sessionVersion, addressType: addressType, unicastAddress: address))
        if offer.bundled, let mid = offer.mid {
            session.attributes.append(SDPAttribute(.group(SDPGroup(semantics: "BUNDLE", mids: [mid]))))
        }
        session.attributes.append(SDPAttribute(.iceLite))
        session.attributes.append(SDPAttribute(.msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: [p.streamID]))))

        for (index, offered) in offer.description.media.enumerated() {
            if index == offer.audioIndex {
                session.media.append(audioSection(offer: offer, offered: offered, parameters: p,
                                                  role: dtlsRole ?? offer.localDTLSRole,
                                                  addressType: addressType, address: address))
            } else {
                session.media.append(rejected(offered))
            }
        }
        return session
    }

    static func audioSection(offer: AudioOffer, offered: MediaDescription, parameters p: AnswerParameters,
                             role: DTLSRole, addressType: String, address: String) -> MediaDescription {
        let port = p.candidates.first?.port ?? 9
        let event = p.telephoneEvent ? offer.telephoneEventPayloadType : nil
        var media = MediaDescription(mediaType: "audio", port: port, proto: offered.proto,
                                     formats: [String(offer.payloadType)] + (event.map { [String($0)] } ?? []),
                                     connections: [SDPConnection(addressType: addressType, address: address)])
        var a: [SDPAttribute] = []
        if let mid = offer.mid { a.append(SDPAttribute(.mid(mid))) }
        a.append(SDPAttribute(.direction(.sendrecv)))
        a.append(SDPAttribute(.rtcpMux))
        a.append(SDPAttribute(.iceUfrag(p.localCredentials.ufrag)))
        a.append(SDPAttribute(.icePwd(p.localCredentials.pwd)))
        a.append(SDPAttribute(.fingerprint(SDPFingerprint(hashFunction: p.fingerprint.algorithm.rawValue,
                                                          bytes: p.fingerprint.digest))))
        a.append(SDPAttribute(.setup(role == .server ? .passive : .active)))
        a.append(SDPAttribute(.rtpmap(SDPRTPMap(payloadType: offer.payloadType, encodingName: offer.codec.rawValue,
                                                clockRate: offer.codec.clockRate, channels: offer.codec.channels))))
        if let fmtp = offer.formatParameters {
            a.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: offer.payloadType, parameterString: fmtp))))
        }
        if let event {
            a.append(SDPAttribute(.rtpmap(SDPRTPMap(payloadType: event, encodingName: "telephone-event",
                                                    clockRate: offer.codec.clockRate))))
            if let fmtp = offer.telephoneEventFormatParameters {
                a.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: event, parameterString: fmtp))))
            }
        }
        a.append(SDPAttribute(.msid(SDPMSID(streamID: p.streamID, trackID: p.trackID))))
        a.append(SDPAttribute(.ssrc(SDPSSRCAttribute(ssrc: p.ssrc, attribute: "cname", value: p.cname))))
        a.append(SDPAttribute(.ssrc(SDPSSRCAttribute(ssrc: p.ssrc, attribute: "msid", value: "\(p.streamID) \(p.trackID)"))))
        for (i, candidate) in p.candidates.enumerated() {
            let priority = ICECandidate.priority(type: .host, localPreference: UInt16(clamping: 65_535 - i))
            a.append(SDPAttribute(.candidate(SDPCandidate(foundation: String(i + 1), priority: priority,
                                                          address: candidate.ipString, port: candidate.port,
                                                          type: .host))))
        }
        a.append(SDPAttribute(.endOfCandidates))
        media.attributes = a
        return media
    }

    /// A rejected section (RFC 8829 §5.3.1): port 0, the offered proto and first format, the mid kept.
    static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var media = MediaDescription(mediaType: offered.mediaType, port: 0, proto: offered.proto,
                                     formats: Array(offered.formats.prefix(1)))
        if let mid = offered.mid { media.attributes = [SDPAttribute(.mid(mid))] }
        return media
    }
}
