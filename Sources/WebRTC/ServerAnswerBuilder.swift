import ICE
import ParleyCrypto
import SDP

/// What the SDP answer of a server-side session is built from.
public struct AnswerParameters: Sendable {
    public var localCredentials: ICECredentials
    public var fingerprint: DTLSFingerprint
    /// Where the shared media socket is reachable: one host candidate each (RFC 8445 §5.1.1.1).
    public var candidates: [ICETransportAddress]
    /// The SSRC of the audio stream we send back, and of the video stream (when video is accepted).
    public var ssrc: UInt32
    public var videoSSRC: UInt32?
    public var cname: String
    public var streamID: String
    public var trackID: String
    public var videoTrackID: String
    public var sessionID: UInt64
    /// The `o=` version: 2 in the first answer, incremented in each later one (RFC 3264 §8).
    public var sessionVersion: UInt64 = 2
    /// Accept the offer's `telephone-event` at the codec's clock rate (RFC 4733), for call sessions.
    public var telephoneEvent = false
    /// Room sessions: the track we send in each section (by mid) where we send; sections without
    /// one send nothing. Empty for echo and call sessions, which send `ssrc` and `videoSSRC`.
    public var sectionTracks: [String: SectionTrack] = [:]

    /// The stream and SSRC we send in one m-section (RFC 8830 msid, RFC 5576 ssrc).
    public struct SectionTrack: Sendable, Hashable {
        public var msid: SDPMSID
        public var ssrc: UInt32
        /// The SSRC we send retransmissions from (RFC 4588 §8.3, `a=ssrc-group:FID`), when the
        /// section takes `rtx`.
        public var rtxSSRC: UInt32?

        public init(msid: SDPMSID, ssrc: UInt32, rtxSSRC: UInt32? = nil) {
            self.msid = msid
            self.ssrc = ssrc
            self.rtxSSRC = rtxSSRC
        }
    }

    public init(localCredentials: ICECredentials, fingerprint: DTLSFingerprint, candidates: [ICETransportAddress],
                ssrc: UInt32, videoSSRC: UInt32? = nil, cname: String, streamID: String = "parley-echo",
                trackID: String = "echo-audio", videoTrackID: String = "echo-video", sessionID: UInt64) {
        self.localCredentials = localCredentials
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.ssrc = ssrc
        self.videoSSRC = videoSSRC
        self.cname = cname
        self.streamID = streamID
        self.trackID = trackID
        self.videoTrackID = videoTrackID
        self.sessionID = sessionID
    }
}

/// Builds the SDP answer of a server-side session (RFC 8829 §5.3, RFC 8839 for ICE-lite): the
/// accepted sections (audio, and video when the offer was read accepting it), every other section
/// rejected with port 0, in the offer's order; BUNDLE over the accepted ones (RFC 8843 §7.3).
public enum ServerAnswerBuilder {
    /// The answer to `offer`: `a=ice-lite`, our credentials and sha-256 fingerprint,
    /// `a=setup:passive` (or `active` if the offerer insisted on `passive`), rtcp-mux, each
    /// section's mid, codec and direction (the offer's reversed), our msid/ssrc, host candidates
    /// and `a=end-of-candidates` (ICE-lite gathers everything up front). With `p.telephoneEvent`,
    /// the offered `telephone-event` at the audio codec's rate is accepted too. `dtlsRole` keeps
    /// an existing session's role in a later answer (RFC 8842 §5.5); by default it follows the offer.
    public static func answer(to offer: MediaOffer, parameters p: AnswerParameters,
                              dtlsRole: DTLSRole? = nil) -> SessionDescription {
        let first = p.candidates.first
        let transport = LocalMediaSection.Transport(
            credentials: p.localCredentials, fingerprint: p.fingerprint,
            setup: (dtlsRole ?? offer.localDTLSRole) == .server ? .passive : .active,
            candidates: candidates(p.candidates), port: first?.port ?? 9, address: first?.ipString ?? "0.0.0.0",
            isIPv4: first?.isIPv4 ?? true)
        var session = SessionDescription(
            origin: SDPOrigin(sessionID: p.sessionID, sessionVersion: p.sessionVersion,
                              addressType: transport.isIPv4 ? "IP4" : "IP6", unicastAddress: transport.address))
        if offer.bundled {
            session.attributes.append(SDPAttribute(.group(SDPGroup(semantics: "BUNDLE", mids: offer.bundleMids))))
        }
        session.attributes.append(SDPAttribute(.iceLite))
        session.attributes.append(SDPAttribute(.msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: [p.streamID]))))
        for section in offer.sections {
            if let application = offer.application, application.index == section.index {
                session.media.append(LocalMediaSection.application(application, transport))
                continue
            }
            guard let codec = section.codec else {
                session.media.append(LocalMediaSection.rejected(offer.description.media[section.index]))
                continue
            }
            let isAudio = codec.audio != nil
            let track: (msid: SDPMSID, ssrc: UInt32)?
            var rtxSSRC: UInt32?
            if p.sectionTracks.isEmpty {
                track = (isAudio ? p.ssrc : p.videoSSRC).map { (SDPMSID(streamID: p.streamID, trackID: isAudio ? p.trackID : p.videoTrackID), $0) }
            } else {
                let sectionTrack = section.mid.flatMap { p.sectionTracks[$0] }
                track = sectionTrack.map { ($0.msid, $0.ssrc) }
                rtxSSRC = section.rtxPayloadType == nil ? nil : sectionTrack?.rtxSSRC
            }
            var local = LocalMediaSection(
                mediaType: section.mediaType, mid: section.mid, proto: section.proto, direction: section.answerDirection,
                formats: LocalMediaSection.answerFormats(section, telephoneEvent: isAudio && p.telephoneEvent),
                track: track.flatMap { track in section.answerDirection.sends ? (track.msid, track.ssrc, p.cname) : nil })
            if let rtxSSRC, let rtx = section.rtxPayloadType, let codec = section.codec {
                local.formats.append(LocalMediaSection.Format(
                    map: SDPRTPMap(payloadType: rtx, encodingName: "rtx", clockRate: codec.clockRate),
                    parameters: "apt=\(section.payloadType)"))
                local.rtxSSRC = rtxSSRC
            }
            // We only read these on what the peer sends (RFC 8285 §6: recvonly from our side).
            if section.direction.sends {
                let direction: SDPDirection? = section.answerDirection == .sendrecv ? .recvonly : nil
                local.extmaps = [(section.audioLevelExtensionID, OfferedMediaSection.audioLevelURI),
                                 (section.transportCCExtensionID, OfferedMediaSection.transportCCURI)]
                    .compactMap { id, uri in id.map { SDPExtmap(id: UInt16($0), direction: direction, uri: uri) } }
                if let simulcast = section.simulcast {
                    local.extmaps += simulcast.extmaps(direction: direction)
                    local.simulcastAttributes = simulcast.answerAttributes
                }
            }
            // What we stamp on what we send in it (RFC 8285 §6: sendonly from our side).
            if section.answerDirection.sends, let id = section.absSendTimeExtensionID {
                local.extmaps.append(SDPExtmap(id: UInt16(id), direction: section.answerDirection == .sendrecv ? .sendonly : nil,
                                               uri: OfferedMediaSection.absSendTimeURI))
            }
            session.media.append(local.description(transport))
        }
        return session
    }

    /// Host candidates, one per address, preferred in order (RFC 8445 §5.1.2.1).
    static func candidates(_ addresses: [ICETransportAddress]) -> [SDPAttribute] {
        addresses.enumerated().map { i, candidate in
            let priority = ICECandidate.priority(type: .host, localPreference: UInt16(clamping: 65_535 - i))
            return SDPAttribute(.candidate(SDPCandidate(foundation: String(i + 1), priority: priority,
                                                        address: candidate.ipString, port: candidate.port, type: .host)))
        }
    }
}
