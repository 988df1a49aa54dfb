import SDP

/// The offer of a connection with transceivers (unified plan, RFC 8829 §5.2): one m-section per
/// transceiver in the order they were added, and the data channel section where it was first
/// offered; a later offer keeps every section where it was (§5.2.2), appends the new ones, and
/// offers a stopped transceiver's section with port 0. Every section is in the BUNDLE group
/// (RFC 8843) but rejected ones, and carries our one transport's lines.
extension ClientSDP {
    /// Header extension ids as Chromium numbers them (RFC 8285 §5, one-byte form).
    static let audioLevelExtensionID: UInt16 = 1
    static let absSendTimeExtensionID: UInt16 = 2
    static let transportCCExtensionID: UInt16 = 3
    static let midExtensionID: UInt16 = 4
    static let streamIDExtensionID: UInt16 = 10
    static let repairedStreamIDExtensionID: UInt16 = 11

    /// The RTX payload type of a video codec (RFC 4588 §8.1): the next one, as Chromium numbers them.
    static func rtxPayloadType(_ codec: VideoCodec) -> UInt8 { payloadType(codec) + 1 }

    static func transceiverOffer(_ core: PeerConnectionCore) -> String {
        core.media.placeNewSections(dataChannel: core.configuration.offerDataChannels)
        let transport = self.transport(core, setup: .actpass)
        var media: [MediaDescription] = []
        var mids: [String] = []
        for section in core.media.sections {
            switch section {
            case .application:
                guard let mid = core.media.applicationMid else { continue }
                media.append(LocalMediaSection.application(mid: mid, transport))
                mids.append(mid)
            case .transceiver(let index):
                let transceiver = core.media.list[index]
                if transceiver.isStopped {
                    media.append(stoppedSection(transceiver, core: core))
                } else {
                    media.append(transceiverSection(transceiver, core: core).description(transport)
                        .stripping(ssrcs: !transceiver.handle.sendEncodings.isEmpty))
                    mids.append(transceiver.mid)
                }
            }
        }
        return session(core, mids: mids, media: media).serialized()
    }

    static func transceiverSection(_ transceiver: ClientTransceiver, core: PeerConnectionCore) -> LocalMediaSection {
        let handle = transceiver.handle
        let direction: SDPDirection = switch handle.direction {
        case .sendrecv: .sendrecv
        case .sendonly: .sendonly
        case .recvonly: .recvonly
        }
        let first = transceiver.layers.first
        var local = LocalMediaSection(
            mediaType: handle.kind.rawValue, mid: handle.mid, proto: "UDP/TLS/RTP/SAVPF", direction: direction,
            formats: handle.kind == .audio ? audioFormats(core) : videoFormats(core),
            track: first.map { (SDPMSID(streamID: handle.streamID, trackID: handle.trackID), $0.ssrc, core.cname) })
        local.rtxSSRC = first?.rtxSSRC
        var extensions: [(UInt16, String)] = [(transportCCExtensionID, OfferedMediaSection.transportCCURI),
                                              (midExtensionID, NegotiatedTransceiver.midURI)]
        if handle.kind == .audio {
            extensions.insert((audioLevelExtensionID, OfferedMediaSection.audioLevelURI), at: 0)
        } else {
            extensions.insert((absSendTimeExtensionID, OfferedMediaSection.absSendTimeURI), at: 0)
            extensions += [(streamIDExtensionID, NegotiatedTransceiver.streamIDURI),
                           (repairedStreamIDExtensionID, NegotiatedTransceiver.repairedStreamIDURI)]
        }
        local.extmaps = extensions.map { SDPExtmap(id: $0.0, uri: $0.1) }
        // RFC 8853 §5.1, RFC 8851 §4: one `a=rid … send` per stream, then `a=simulcast:send`.
        let rids = handle.sendEncodings
        if !rids.isEmpty {
            local.simulcastAttributes = rids.map { SDPAttribute(name: "rid", value: SDPRID(id: $0, direction: .send).sdpValue) }
                + [SDPAttribute(name: "simulcast", value: SDPSimulcast(send: rids.map { [SDPSimulcast.Alternative(rid: $0)] }).sdpValue)]
        }
        return local
    }

    /// Opus (then G.711 as configured) with transport-wide CC feedback; no RED or telephone events
    /// (a room forwards media as it comes).
    static func audioFormats(_ core: PeerConnectionCore) -> [LocalMediaSection.Format] {
        var codecs = core.configuration.audioCodecs.reduce(into: [AudioCodec]()) { if !$0.contains($1) { $0.append($1) } }
        if codecs.isEmpty { codecs = [.opus] }
        return codecs.map { codec in
            guard let pt = codec.staticPayloadType else {
                return .init(map: SDPRTPMap(payloadType: opus.pt, encodingName: "opus", clockRate: 48_000, channels: 2),
                             parameters: opus.fmtp, feedback: [SDPRTCPFeedback(payloadType: opus.pt, type: "transport-cc")])
            }
            return .init(map: SDPRTPMap(payloadType: pt, encodingName: codec.rawValue, clockRate: 8_000))
        }
    }

    /// Each configured video codec (VP8 when none is) with the feedback Chromium offers — REMB,
    /// transport-cc, FIR, Generic NACK, PLI — then its RTX payload type (RFC 4588 §8.1).
    static func videoFormats(_ core: PeerConnectionCore) -> [LocalMediaSection.Format] {
        let codecs = transceiverVideoCodecs(core.configuration)
        let media = codecs.map { codec in
            let pt = payloadType(codec)
            return LocalMediaSection.Format(
                map: SDPRTPMap(payloadType: pt, encodingName: codec.rawValue, clockRate: codec.clockRate),
                parameters: codec == .h264 ? "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f" : nil,
                feedback: [SDPRTCPFeedback(payloadType: pt, type: "goog-remb"), SDPRTCPFeedback(payloadType: pt, type: "transport-cc"),
                           SDPRTCPFeedback(payloadType: pt, type: "ccm", parameter: "fir"),
                           SDPRTCPFeedback(payloadType: pt, type: "nack"), SDPRTCPFeedback(payloadType: pt, type: "nack", parameter: "pli")])
        }
        let rtx = codecs.map { codec in
            LocalMediaSection.Format(map: SDPRTPMap(payloadType: rtxPayloadType(codec), encodingName: "rtx", clockRate: codec.clockRate),
                                     parameters: "apt=\(payloadType(codec))")
        }
        return media + rtx
    }

    /// The video codecs transceivers offer and accept: the configured ones, VP8 when none is.
    static func transceiverVideoCodecs(_ configuration: PeerConnection.Configuration) -> [VideoCodec] {
        let codecs = configuration.videoCodecs.reduce(into: [VideoCodec]()) { if !$0.contains($1) { $0.append($1) } }
        return codecs.isEmpty ? [.vp8] : codecs
    }

    /// A stopped transceiver's section in a later offer (RFC 8829 §5.2.2): port 0, its mid kept.
    static func stoppedSection(_ transceiver: ClientTransceiver, core: PeerConnectionCore) -> MediaDescription {
        let format = transceiver.kind == .audio ? opus.pt : payloadType(transceiverVideoCodecs(core.configuration)[0])
        var media = MediaDescription(mediaType: transceiver.kind.rawValue, port: 0, proto: "UDP/TLS/RTP/SAVPF",
                                     formats: [String(format)])
        media.attributes = [SDPAttribute(.mid(transceiver.mid))]
        return media
    }
}

extension MediaDescription {
    /// Without `a=ssrc` and `a=ssrc-group` lines: a simulcast section announces none (its streams
    /// are told apart by rid, RFC 8852), as browsers offer it.
    func stripping(ssrcs: Bool) -> MediaDescription {
        guard ssrcs else { return self }
        var media = self
        media.attributes.removeAll { $0.name == "ssrc" || $0.name == "ssrc-group" }
        return media
    }
}
