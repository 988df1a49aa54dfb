import ICE
import ParleyCrypto
import SDP

/// The client's SDP (RFC 8829 JSEP, RFC 8839 ICE, RFC 8842 DTLS, RFC 8843 BUNDLE): an offer with a
/// sendrecv audio section (and a video section when configured), or an answer accepting what we
/// take from an offer, every other section rejected in place. Candidates are complete when this
/// runs (no trickle), so each section ends with `a=end-of-candidates`.
enum ClientSDP {
    static let opus = (pt: UInt8(111), fmtp: "minptime=10;useinbandfec=1")
    static let telephoneEvent = UInt8(101)
    /// RFC 4733 §2.1: events use the audio codec's clock rate, so Opus needs its own (Chrome's PT).
    static let telephoneEventWide = UInt8(110)
    /// RFC 2198 redundant Opus, as Chromium numbers it.
    static let red = UInt8(63)
    /// Video payload types as Chromium numbers them, clear of the audio ones above.
    static func payloadType(_ codec: VideoCodec) -> UInt8 {
        switch codec {
        case .vp8: 96
        case .vp9: 98
        case .h264: 102
        case .av1: 45
        }
    }

    /// Keyframe requests a forwarder relays (RFC 4585 §6.3.1 PLI, RFC 5104 §7.1 FIR).
    static func videoFeedback(_ pt: UInt8) -> [SDPRTCPFeedback] {
        [SDPRTCPFeedback(payloadType: pt, type: "nack", parameter: "pli"),
         SDPRTCPFeedback(payloadType: pt, type: "ccm", parameter: "fir")]
    }

    static func offer(_ core: PeerConnectionCore) -> String {
        if core.media.isActive { return transceiverOffer(core) }
        var codecs = core.configuration.audioCodecs.reduce(into: [AudioCodec]()) { if !$0.contains($1) { $0.append($1) } }
        if codecs.isEmpty { codecs = AudioCodec.allCases }
        var formats: [LocalMediaSection.Format] = []
        for codec in codecs {
            switch codec {
            case .opus:
                let bitrate = core.configuration.opusMaxAverageBitrate.map { ";maxaveragebitrate=\($0)" } ?? ""
                formats.append(.init(map: SDPRTPMap(payloadType: opus.pt, encodingName: "opus", clockRate: 48_000, channels: 2),
                                     parameters: opus.fmtp + bitrate,
                                     feedback: core.configuration.offerAudioNACK
                                         ? [SDPRTCPFeedback(payloadType: opus.pt, type: "nack", parameter: nil)] : []))
                if core.configuration.offerRED {
                    formats.append(LocalMediaSection.redFormat(payloadType: red, codecPayloadType: opus.pt))
                }
            case .pcmu, .pcma:
                let pt = codec.staticPayloadType!
                formats.append(.init(map: SDPRTPMap(payloadType: pt, encodingName: codec.rawValue, clockRate: 8_000)))
            }
        }
        if core.configuration.offerTelephoneEvent {
            formats.append(.init(map: SDPRTPMap(payloadType: telephoneEventWide, encodingName: "telephone-event",
                                                clockRate: 48_000), parameters: "0-16"))
            formats.append(.init(map: SDPRTPMap(payloadType: telephoneEvent, encodingName: "telephone-event",
                                                clockRate: 8_000), parameters: "0-16"))
        }
        let transport = self.transport(core, setup: .actpass)
        var sections = [LocalMediaSection(mediaType: "audio", mid: "0", proto: "UDP/TLS/RTP/SAVPF", direction: .sendrecv,
                                          formats: formats, track: audioTrack(core))]
        let video = core.configuration.videoCodecs.reduce(into: [VideoCodec]()) { if !$0.contains($1) { $0.append($1) } }
        if !video.isEmpty {
            sections.append(LocalMediaSection(
                mediaType: "video", mid: "1", proto: "UDP/TLS/RTP/SAVPF", direction: .sendrecv,
                formats: video.map { codec in
                    let pt = payloadType(codec)
                    return .init(map: SDPRTPMap(payloadType: pt, encodingName: codec.rawValue, clockRate: codec.clockRate),
                                 parameters: codec == .h264
                                     ? "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f" : nil,
                                 feedback: videoFeedback(pt))
                },
                track: videoTrack(core)))
        }
        var media = sections.map { $0.description(transport) }
        var mids = sections.compactMap(\.mid)
        if core.configuration.offerDataChannels {
            let mid = String(sections.count)
            media.append(LocalMediaSection.application(mid: mid, transport))
            mids.append(mid)
        }
        return session(core, mids: mids, media: media).serialized()
    }

    static func answer(_ core: PeerConnectionCore, to offer: MediaOffer) -> String {
        let transport = self.transport(core, setup: core.dtlsRole == .client ? .active : .passive)
        var media: [MediaDescription] = []
        for section in offer.sections {
            guard let codec = section.codec else {
                media.append(LocalMediaSection.rejected(offer.description.media[section.index]))
                continue
            }
            let isAudio = codec.audio != nil
            let local = LocalMediaSection(
                mediaType: section.mediaType, mid: section.mid, proto: section.proto, direction: section.answerDirection,
                formats: LocalMediaSection.answerFormats(section, telephoneEvent: false, red: core.configuration.offerRED,
                                                          nack: core.configuration.offerAudioNACK),
                track: section.answerDirection.sends ? (isAudio ? audioTrack(core) : videoTrack(core)) : nil)
            media.append(local.description(transport))
        }
        return session(core, mids: offer.bundleMids, media: media).serialized()
    }

    static func audioTrack(_ core: PeerConnectionCore) -> (msid: SDPMSID, ssrc: UInt32, cname: String) {
        (SDPMSID(streamID: core.streamID, trackID: core.trackID), core.localSSRC, core.cname)
    }

    static func videoTrack(_ core: PeerConnectionCore) -> (msid: SDPMSID, ssrc: UInt32, cname: String) {
        (SDPMSID(streamID: core.streamID, trackID: core.videoTrackID), core.localVideoSSRC, core.cname)
    }

    static func session(_ core: PeerConnectionCore, mids: [String], media: [MediaDescription]) -> SessionDescription {
        let address = defaultCandidate(core)?.address
        var session = SessionDescription(
            origin: SDPOrigin(sessionID: core.sdpSessionID, sessionVersion: core.nextSDPVersion(),
                              addressType: address.map { $0.isIPv4 ? "IP4" : "IP6" } ?? "IP4",
                              unicastAddress: address?.ipString ?? "127.0.0.1"))
        if !mids.isEmpty {
            session.attributes.append(SDPAttribute(.group(SDPGroup(semantics: "BUNDLE", mids: mids))))
        }
        session.attributes.append(SDPAttribute(.msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: [core.streamID]))))
        session.media = media
        return session
    }

    /// The m-line's address (RFC 8839 §4.2.1.1): the highest-priority candidate.
    static func defaultCandidate(_ core: PeerConnectionCore) -> ICECandidate? {
        core.ice.localCandidates.max { $0.priority < $1.priority }
    }

    /// Our transport lines, the same in every section (one BUNDLE transport).
    static func transport(_ core: PeerConnectionCore, setup: SDPSetupRole) -> LocalMediaSection.Transport {
        let candidate = defaultCandidate(core)
        return LocalMediaSection.Transport(
            credentials: core.ice.localCredentials, iceOptions: ["trickle"], fingerprint: core.certificate.fingerprint,
            setup: setup,
            candidates: core.ice.localCandidates.map {
                SDPAttribute(name: "candidate", value: String($0.sdpAttributeValue.dropFirst("candidate:".count)))
            },
            port: candidate?.address.port ?? 9, address: candidate?.address.ipString ?? "0.0.0.0",
            isIPv4: candidate.map { $0.address.isIPv4 } ?? true)
    }
}
