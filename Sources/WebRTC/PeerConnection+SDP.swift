import ICE
import ParleyCrypto
import SDP

/// The client's SDP (RFC 8829 JSEP, RFC 8839 ICE, RFC 8842 DTLS): an offer with one sendrecv
/// audio section, or an answer accepting one. Candidates are complete when this runs (no trickle),
/// so both end with `a=end-of-candidates`.
enum ClientSDP {
    static let opus = (pt: UInt8(111), fmtp: "minptime=10;useinbandfec=1")
    static let telephoneEvent = UInt8(101)
    /// RFC 4733 §2.1: events use the audio codec's clock rate, so Opus needs its own (Chrome's PT).
    static let telephoneEventWide = UInt8(110)

    static func offer(_ core: PeerConnectionCore) -> String {
        var codecs = core.configuration.audioCodecs.reduce(into: [AudioCodec]()) { if !$0.contains($1) { $0.append($1) } }
        if codecs.isEmpty { codecs = AudioCodec.allCases }
        var formats: [String] = []
        var rtp: [SDPAttribute] = []
        for codec in codecs {
            switch codec {
            case .opus:
                let bitrate = core.configuration.opusMaxAverageBitrate.map { ";maxaveragebitrate=\($0)" } ?? ""
                formats.append(String(opus.pt))
                rtp.append(SDPAttribute(.rtpmap(SDPRTPMap(payloadType: opus.pt, encodingName: "opus", clockRate: 48_000,
                                                          channels: 2))))
                rtp.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: opus.pt, parameterString: opus.fmtp + bitrate))))
            case .pcmu, .pcma:
                let pt = codec.staticPayloadType!
                formats.append(String(pt))
                rtp.append(SDPAttribute(.rtpmap(SDPRTPMap(payloadType: pt, encodingName: codec.rawValue, clockRate: 8_000))))
            }
        }
        if core.configuration.offerTelephoneEvent { formats += [String(telephoneEventWide), String(telephoneEvent)] }
        if core.configuration.offerTelephoneEvent {
            rtp.append(SDPAttribute(.rtpmap(SDPRTPMap(payloadType: telephoneEventWide, encodingName: "telephone-event",
                                                      clockRate: 48_000))))
            rtp.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: telephoneEventWide, parameterString: "0-16"))))
            rtp.append(SDPAttribute(.rtpmap(SDPRTPMap(payloadType: telephoneEvent, encodingName: "telephone-event",
                                                      clockRate: 8_000))))
            rtp.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: telephoneEvent, parameterString: "0-16"))))
        }
        let media = section(core, mid: "0", proto: "UDP/TLS/RTP/SAVPF", formats: formats, setup: .actpass, rtp: rtp)
        return session(core, mids: ["0"], media: [media]).serialized()
    }

    static func answer(_ core: PeerConnectionCore, to offer: AudioOffer) -> String {
        let offered = offer.description.media[offer.audioIndex]
        var rtp = [SDPAttribute(.rtpmap(SDPRTPMap(payloadType: offer.payloadType, encodingName: offer.codec.rawValue,
                                                  clockRate: offer.codec.clockRate, channels: offer.codec.channels)))]
        if let fmtp = offer.formatParameters {
            rtp.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: offer.payloadType, parameterString: fmtp))))
        }
        let setup: SDPSetupRole = core.dtlsRole == .client ? .active : .passive
        var sections: [MediaDescription] = []
        for (index, media) in offer.description.media.enumerated() {
            if index == offer.audioIndex {
                sections.append(section(core, mid: offer.mid, proto: offered.proto,
                                        formats: [String(offer.payloadType)], setup: setup, rtp: rtp))
            } else {
                sections.append(EchoAnswerBuilder.rejected(media))
            }
        }
        let mids = offer.bundled ? offer.mid.map { [$0] } ?? [] : []
        return session(core, mids: mids, media: sections).serialized()
    }

    static func session(_ core: PeerConnectionCore, mids: [String], media: [MediaDescription]) -> SessionDescription {
        let address = defaultCandidate(core)?.address
        var session = SessionDescription(
            origin: SDPOrigin(sessionID: UInt64.random(in: 1...(1 << 62)), sessionVersion: 2,
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

    static func section(_ core: PeerConnectionCore, mid: String?, proto: String, formats: [String], setup: SDPSetupRole,
                        rtp: [SDPAttribute]) -> MediaDescription {
        let candidate = defaultCandidate(core)
        let addressType = candidate.map { $0.address.isIPv4 ? "IP4" : "IP6" } ?? "IP4"
        var media = MediaDescription(mediaType: "audio", port: candidate?.address.port ?? 9, proto: proto, formats: formats,
                                     connections: [SDPConnection(addressType: addressType,
                                                                 address: candidate?.address.ipString ?? "0.0.0.0")])
        let credentials = core.ice.localCredentials
        let fingerprint = core.certificate.fingerprint
        var a: [SDPAttribute] = []
        if let mid { a.append(SDPAttribute(.mid(mid))) }
        a.append(SDPAttribute(.direction(.sendrecv)))
        a.append(SDPAttribute(.rtcpMux))
        a.append(SDPAttribute(.iceUfrag(credentials.ufrag)))
        a.append(SDPAttribute(.icePwd(credentials.pwd)))
        a.append(SDPAttribute(name: "ice-options", value: "trickle"))
        a.append(SDPAttribute(.fingerprint(SDPFingerprint(hashFunction: fingerprint.algorithm.rawValue,
                                                          bytes: fingerprint.digest))))
        a.append(SDPAttribute(.setup(setup)))
        a += rtp
        a.append(SDPAttribute(.msid(SDPMSID(streamID: core.streamID, trackID: core.trackID))))
        a.append(SDPAttribute(.ssrc(SDPSSRCAttribute(ssrc: core.localSSRC, attribute: "cname", value: core.cname))))
        a.append(SDPAttribute(.ssrc(SDPSSRCAttribute(ssrc: core.localSSRC, attribute: "msid",
                                                     value: "\(core.streamID) \(core.trackID)"))))
        for candidate in core.ice.localCandidates {
            a.append(SDPAttribute(name: "candidate", value: String(candidate.sdpAttributeValue.dropFirst("candidate:".count))))
        }
        a.append(SDPAttribute(.endOfCandidates))
        media.attributes = a
        return media
    }
}
