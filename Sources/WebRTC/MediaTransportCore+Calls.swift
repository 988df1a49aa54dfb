import ICE
import ParleyCore
import ParleyNet
import SDP

/// Call sessions on the loop: forwarding links, played frames, audio taps and ICE restarts.
extension MediaTransportCore {
    /// Makes `sourceID`'s media go to `sinkID`. Both must be live call sessions with the same codec.
    func forward(from sourceID: String, to sinkID: String) -> Bool {
        guard sourceID != sinkID, let source = sessions[sourceID], let sink = sessions[sinkID],
              source.kind == .call, sink.kind == .call, !source.state.isTerminal, !sink.state.isTerminal else {
            return false
        }
        guard source.offer.codec == sink.offer.codec else {
            Log.info(.webrtc, "cannot forward \(sourceID) → \(sinkID): \(source.offer.codec) vs \(sink.offer.codec) "
                     + "(transcoding is not supported)")
            return false
        }
        if sink.source !== source {
            sink.setSource(source)
            Log.debug(.webrtc, "forwarding \(sourceID) → \(sinkID)")
        }
        return true
    }

    func stopForwarding(to sinkID: String) {
        guard let sink = sessions[sinkID], sink.source != nil else { return }
        sink.setSource(nil)
        Log.debug(.webrtc, "forwarding to \(sinkID) stopped")
    }

    func play(_ frame: EncodedAudioFrame, to id: String) {
        guard let session = sessions[id], session.kind == .call, let batch = socket?.sendBatch else { return }
        if session.play(frame, now: now, batch: batch) {
            stats.datagramsSent += 1
            stats.framesPlayed += 1
        }
        flush()
    }

    func setAudioTap(_ tap: OffLoopDelivery<MediaTapPacket>?, session id: String) -> Bool {
        guard let session = sessions[id], !session.state.isTerminal else {
            tap?.finish()
            return false
        }
        session.tap?.finish()
        session.tap = tap
        return true
    }

    /// A new offer for a live session (RFC 8839 §4.4.1.1.1). New remote ICE credentials are an
    /// ICE restart (RFC 8445 §9): we answer with new ones of ours, and the agent keeps the
    /// selected pair (and answers checks under the old credentials) until the peer nominates
    /// under the new ones. DTLS, SRTP, the SSRC and forwarding links are kept, so the offer must
    /// keep the certificate fingerprint and the codec. Unchanged credentials get the current
    /// credentials back (a plain re-offer).
    func restart(id: String, offer description: SessionDescription) -> Result<String, ParleyError> {
        guard let session = sessions[id], !session.state.isTerminal, session.kind != .room else {
            return .failure(ParleyError(.mediaServerRemoteDescFailed, reason: "no live media session \(id)"))
        }
        let offer: MediaOffer
        // The codec the session chose stays preferred, whatever chose it.
        do {
            offer = try MediaOffer(offer: description, videoCodecs: session.kind == .echo ? VideoCodec.allCases : [],
                                   preferredAudio: session.offer.codec)
        } catch {
            return .failure(error)
        }
        guard offer.accepted.map(\.codec) == session.offer.accepted.map(\.codec) else {
            let codecs = { (o: MediaOffer) in o.accepted.compactMap { $0.codec?.encodingName }.joined(separator: "+") }
            return .failure(ParleyError(.mediaNoSupportedCodec,
                                        reason: "the re-offer's codecs \(codecs(offer)) differ from the session's \(codecs(session.offer))"))
        }
        return restart(session, offer: offer)
    }

    /// Applies a checked re-offer: the same DTLS certificate, new ICE credentials if the peer's
    /// changed, a new answer (version + 1) from the session's answer parameters.
    func restart(_ session: PeerSession, offer: MediaOffer) -> Result<String, ParleyError> {
        let id = session.id
        guard offer.remoteFingerprints.contains(where: { session.offer.remoteFingerprints.contains($0) }) else {
            return .failure(ParleyError(.mediaServerRemoteDescFailed,
                                        reason: "the re-offer changes the DTLS certificate; a new DTLS session is not supported"))
        }
        var parameters = session.answerParameters
        parameters.sessionVersion += 1
        if offer.remoteCredentials != session.ice.remoteCredentials {
            parameters.localCredentials = uniqueCredentials()
            let old = session.localUfrag
            _ = session.ice.restart(localCredentials: parameters.localCredentials, remoteCredentials: offer.remoteCredentials)
            // Route what the agent still honours: the credentials the selected pair was chosen under.
            for stale in [session.previousUfrag, old] where stale != session.ice.previousLocalUfrag {
                if let stale, byUfrag[stale] === session { byUfrag[stale] = nil }
            }
            session.previousUfrag = session.ice.previousLocalUfrag
            session.restartPending = true
            byUfrag[parameters.localCredentials.ufrag] = session
            Log.info(.webrtc, "session \(id): ICE restart")
        }
        let answer = ServerAnswerBuilder.answer(to: offer, parameters: parameters, dtlsRole: session.offer.localDTLSRole)
        session.answerParameters = parameters
        session.answer = answer.serialized()
        session.renegotiate(offer)
        return .success(session.answer)
    }
}
