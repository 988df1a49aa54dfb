import ParleyCore
import ParleyCrypto
import ParleyRTP
import SDP
import SFU

/// Negotiation of a connection with transceivers: adding them, re-offers on the same ICE and
/// DTLS transport (RFC 8829 §5.2.2), and answers mapped onto them by section (and mid).
extension PeerConnectionCore {
    func addTransceiver(kind: RTPTransceiver.Kind, direction: RTPTransceiver.Direction, sendEncodings: [String],
                        streamID: String?, trackID: String?) -> Result<RTPTransceiver, ParleyError> {
        guard !state.isTerminal else { return .failure(ParleyError(.mediaClientLocalDescFailed, reason: "closed")) }
        guard localSDP == nil || media.isActive, isOfferer || localSDP == nil else {
            return .failure(ParleyError(.mediaClientLocalDescFailed,
                                        reason: "transceivers need a connection that offered with transceivers"))
        }
        guard media.list.count < ClientTransceivers.maxTransceivers else {
            return .failure(ParleyError(.mediaClientLocalDescFailed, reason: "at most \(ClientTransceivers.maxTransceivers) transceivers"))
        }
        if !sendEncodings.isEmpty {
            let valid = sendEncodings.allSatisfy { rid in
                (1...16).contains(rid.utf8.count) && rid.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == 0x2D || $0 == 0x5F }
            }
            guard kind == .video, direction.sends, valid, Set(sendEncodings).count == sendEncodings.count,
                  sendEncodings.count <= SimulcastLayers.maxLayers else {
                return .failure(ParleyError(.mediaClientLocalDescFailed, reason: "sendEncodings \(sendEncodings): simulcast "
                    + "needs a sending video transceiver and 1–\(SimulcastLayers.maxLayers) distinct rids of 1–16 letters, digits, - or _"))
            }
        }
        let mid = media.takeMid()
        let handle = RTPTransceiver(index: media.list.count, mid: mid, kind: kind, direction: direction,
                                    sendEncodings: sendEncodings, streamID: streamID ?? self.streamID,
                                    trackID: trackID ?? "\(kind.rawValue)-\(mid)-\(SecureRandom.hex(byteCount: 4))")
        var layers: [ClientSendLayer] = []
        if direction.sends {
            for rid in sendEncodings.isEmpty ? [nil] : sendEncodings.map(Optional.some) {
                layers.append(ClientSendLayer(rid: rid, ssrc: freshSSRC(), rtxSSRC: kind == .video ? freshSSRC() : nil))
            }
        }
        media.list.append(ClientTransceiver(handle: handle, layers: layers))
        return .success(handle)
    }

    /// An SSRC none of our streams uses (RFC 3550 §8.1).
    func freshSSRC() -> UInt32 {
        var used: Set<UInt32> = [localSSRC, localVideoSSRC, rtp.receiverSSRC]
        for transceiver in media.list {
            for layer in transceiver.layers { used.formUnion([layer.ssrc] + (layer.rtxSSRC.map { [$0] } ?? [])) }
        }
        var random = SystemRandomNumberGenerator()
        var ssrc = UInt32.random(in: 1...UInt32.max, using: &random)
        while used.contains(ssrc) { ssrc = UInt32.random(in: 1...UInt32.max, using: &random) }
        return ssrc
    }

    /// A later offer of a connected (or connecting) transceiver connection: the same ICE
    /// credentials, candidates and DTLS fingerprint, every section where it was, new ones appended.
    func reoffer() -> Result<String, ParleyError> {
        guard media.isActive, isOfferer, remote != nil, !state.isTerminal, !iceRestartPending, !media.offerPending else {
            return .failure(ParleyError(.mediaClientLocalDescFailed,
                                        reason: "a re-offer needs an answered offer with transceivers and no negotiation under way"))
        }
        let sdp = ClientSDP.offer(self)
        localSDP = sdp
        media.offerPending = true
        return .success(sdp)
    }

    /// An answer to an offer of ours with transceivers: the transport from the first one; each
    /// section's codec, extensions, feedback and SSRCs onto its transceiver; rejected sections
    /// stop theirs. A re-offer's answer keeps ICE and DTLS as they are (the fingerprint must not
    /// change), unless the offer restarted ICE.
    func applyTransceiverAnswer(_ description: SessionDescription) -> Result<Void, ParleyError> {
        guard localSDP != nil, media.offerPending || iceRestartPending, !state.isTerminal else {
            return .failure(ParleyError(.mediaClientRemoteDescFailed, reason: "no offer of ours waits for an answer"))
        }
        let answer: MediaOffer
        do {
            answer = try MediaOffer(roomOffer: description, videoCodecs: ClientSDP.transceiverVideoCodecs(configuration))
        } catch {
            let code: ParleyError.Code = error.code == .mediaNoSupportedCodec ? error.code : .mediaClientRemoteDescFailed
            return .failure(ParleyError(code, reason: error.failureReason))
        }
        guard answer.sections.count <= media.sections.count else {
            return .failure(ParleyError(.mediaClientRemoteDescFailed, reason: "the answer has more m-sections than our offer"))
        }
        if let current = remote {
            guard answer.remoteFingerprints.contains(where: { current.remoteFingerprints.contains($0) }) else {
                return .failure(ParleyError(.mediaClientRemoteDescFailed, reason: "the answer changes the DTLS certificate"))
            }
            remote = answer
            rtp.payloadFormats = RTPPayloadFormats(answer.payloadFormats(telephoneEvent: false))
            applyTransceiverSections(answer)
            if iceRestartPending {
                iceRestartPending = false
                addRemoteCandidates(answer)
            }
        } else if let error = applyRemote(answer, dtlsRole: answer.localDTLSRole) {
            return .failure(error)
        }
        media.offerPending = false
        flush()
        return .success(())
    }

    /// Maps the answer's sections onto the transceivers they were offered for.
    func applyTransceiverSections(_ answer: MediaOffer) {
        for (position, section) in media.sections.enumerated() {
            guard case .transceiver(let index) = section, !media.list[index].isStopped else { continue }
            guard position < answer.sections.count, let codec = answer.sections[position].codec,
                  answer.sections[position].mid == media.list[index].mid else {
                stopTransceiver(index)
                continue
            }
            let accepted = NegotiatedTransceiver(answer: answer.description, section: position, codec: codec,
                                                 payloadType: answer.sections[position].payloadType)
            if media.list[index].negotiated == nil {
                startTransceiver(index, accepted)
            } else {
                media.list[index].negotiated = accepted
                bindRemote(index, ssrc: accepted.remoteSSRC, rtxSSRC: accepted.remoteRTXSSRC)
            }
        }
    }

    /// The first answer that accepted the transceiver's section: our send streams (sender
    /// reports, NACK caches) and what it receives.
    func startTransceiver(_ index: Int, _ accepted: NegotiatedTransceiver) {
        media.list[index].negotiated = accepted
        let video = accepted.codec.audio == nil
        for layer in media.list[index].layers.indices {
            let ssrc = media.list[index].layers[layer].ssrc
            media.list[index].layers[layer].sendStream = rtp.addSendStream(ssrc: ssrc, clockRate: accepted.codec.clockRate,
                                                                           section: accepted.section)
            if accepted.genericNACK { media.list[index].layers[layer].cache = ClientSendLayer.makeCache(video: video) }
            media.byLocalSSRC[ssrc] = (index, layer)
        }
        if media.list[index].handle.direction.receives {
            if video, accepted.genericNACK { media.list[index].nacks = RTPNACKRequester() }
            bindRemote(index, ssrc: accepted.remoteSSRC, rtxSSRC: accepted.remoteRTXSSRC)
        }
        if media.midExtensionID == nil { media.midExtensionID = accepted.midExtensionID }
    }

    /// Binds the SSRCs the answer announced for a receiving transceiver (RFC 8843 §9.2).
    func bindRemote(_ index: Int, ssrc: UInt32?, rtxSSRC: UInt32?) {
        guard media.list[index].handle.direction.receives else { return }
        for (old, new) in [(media.list[index].remoteSSRC, ssrc), (media.list[index].remoteRTXSSRC, rtxSSRC)]
        where old != new && new != nil {
            if let old { media.bySSRC[old] = nil }
        }
        if let ssrc, media.bySSRC.count < ClientTransceivers.maxBoundSSRCs {
            media.list[index].remoteSSRC = ssrc
            media.bySSRC[ssrc] = (index, false)
        }
        if let rtxSSRC, media.bySSRC.count < ClientTransceivers.maxBoundSSRCs {
            media.list[index].remoteRTXSSRC = rtxSSRC
            media.bySSRC[rtxSSRC] = (index, true)
        }
    }

    /// A section the answer rejected (or left out): nothing more is sent or delivered in it.
    func stopTransceiver(_ index: Int) {
        media.list[index].isStopped = true
        media.list[index].negotiated = nil
        media.list[index].nacks = nil
        media.bySSRC = media.bySSRC.filter { $0.value.transceiver != index }
        media.list[index].handle.receivedSink.finish()
        media.sink?.yield(.stopped(mid: media.list[index].mid))
    }

    /// The connection ended: every transceiver's stream and the events finish.
    func finishTransceivers() {
        for transceiver in media.list { transceiver.handle.receivedSink.finish() }
        media.sink?.finish()
    }
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool { (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
}
