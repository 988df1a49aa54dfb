import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyRTP
import SDP

extension PeerConnectionCore {
    // MARK: - Signaling

    func createOffer(_ completion: @escaping (Result<String, ParleyError>) -> Void) {
        if media.isActive, remote != nil { return completion(reoffer()) }
        guard state == .new, localSDP == nil, gatheringWaiter == nil else {
            return completion(.failure(ParleyError(.mediaClientLocalDescFailed, reason: "offer already created or closed")))
        }
        timings.signalingStarted = elapsed(now)
        isOfferer = true
        media.offerPending = media.isActive
        startGathering(completion) { [unowned self] in ClientSDP.offer(self) }
    }

    func createAnswer(to offer: MediaOffer, _ completion: @escaping (Result<String, ParleyError>) -> Void) {
        guard state == .new, localSDP == nil, gatheringWaiter == nil, !media.isActive else {
            return completion(.failure(ParleyError(.mediaClientLocalDescFailed, reason: "description already set or closed")))
        }
        timings.signalingStarted = elapsed(now)
        ice = Self.makeAgent(iceConfiguration, role: .controlled)
        // RFC 8842 §5.3: answer `active` to actpass/passive (we are the DTLS client).
        let role: DTLSRole = offer.setup == .active ? .server : .client
        if let error = applyRemote(offer, dtlsRole: role) { return completion(.failure(error)) }
        startGathering(completion) { [unowned self] in ClientSDP.answer(self, to: offer) }
    }

    /// The answer to our offer: a transceiver connection's (`applyTransceiverAnswer`), or a call's.
    func setRemoteAnswer(_ description: SessionDescription) -> Result<Void, ParleyError> {
        if media.isActive { return applyTransceiverAnswer(description) }
        let answer: MediaOffer
        do { answer = try PeerConnection.parseRemote(description, videoCodecs: configuration.videoCodecs) } catch {
            return .failure(error)
        }
        if iceRestartPending { return applyRestartAnswer(answer) }
        guard localSDP != nil, remote == nil, !state.isTerminal else {
            return .failure(ParleyError(.mediaClientRemoteDescFailed, reason: "no local offer, or answer already set"))
        }
        if let error = applyRemote(answer, dtlsRole: answer.localDTLSRole) { return .failure(error) }
        flush()
        return .success(())
    }

    /// Remote credentials, candidates and DTLS role, and our send streams (one per accepted
    /// section, audio first); the ICE checks start.
    func applyRemote(_ description: MediaOffer, dtlsRole role: DTLSRole) -> ParleyError? {
        do {
            dtls = try DTLSSession(role: role, certificate: certificate, remoteFingerprints: description.remoteFingerprints,
                                   srtpProtectionProfiles: DTLSSRTPKeying.protectionProfiles,
                               initialRetransmissionTimeout: DTLSSRTPKeying.initialRetransmissionTimeout)
        } catch {
            return error
        }
        dtlsRole = role
        remote = description
        if media.isActive {
            rtp.payloadFormats = RTPPayloadFormats(description.payloadFormats(telephoneEvent: false))
            applyTransceiverSections(description)
        } else {
            applyCallMedia(description)
        }
        timings.remoteDescription = elapsed(now)
        addRemoteCandidates(description)
        startTicking()
        return nil
    }

    /// A call's media (no transceivers): our send streams (audio, then video if accepted), the
    /// codecs, telephone events, RED and audio NACK as negotiated.
    func applyCallMedia(_ description: MediaOffer) {
        // Our answers take no telephone events; as the offerer we send them if the answer took some.
        rtp.payloadFormats = RTPPayloadFormats(description.payloadFormats(telephoneEvent: isOfferer))
        rtp.addSendStream(ssrc: localSSRC, clockRate: description.codec.clockRate, section: description.audioIndex)
        if let video = description.video, let codec = video.codec {
            rtp.addSendStream(ssrc: localVideoSSRC, clockRate: codec.clockRate, section: video.index)
            if case .video(let videoCodec) = codec { stats.videoCodec = videoCodec }
            stats.videoPayloadType = video.payloadType
            stats.localVideoSSRC = localVideoSSRC
        }
        stats.codec = description.codec
        stats.payloadType = description.payloadType
        stats.telephoneEventPayloadType = isOfferer ? description.telephoneEventPayloadType : nil  // our answers take none
        stats.redPayloadType = configuration.offerRED ? description.audio.redPayloadType : nil
        // As the answerer we answered the offer's NACK only if we offer it ourselves.
        if configuration.offerAudioNACK, description.audio.audioNACK {
            stats.isAudioNACKNegotiated = true
            retransmissions = RTPRetransmissionCache()
            nackRequester = RTPNACKRequester()
            nackDue.reserveCapacity(64)
        }
    }

    func nextSDPVersion() -> UInt64 {
        sdpVersion += 1
        return sdpVersion
    }

    /// The peer's ICE credentials and candidates (RFC 8839 §5.1); the checks start.
    func addRemoteCandidates(_ description: MediaOffer) {
        ice.setRemoteCredentials(description.remoteCredentials)
        let media = description.description.media[description.audioIndex]
        var ended = false
        for attribute in media.attributes + description.description.attributes {
            if attribute.name == "candidate", let value = attribute.value,
               let candidate = ICECandidate(sdpAttribute: value) {
                apply(ice.addRemoteCandidate(candidate, now: instant))
            } else if attribute.name == "end-of-candidates" {
                ended = true
            }
        }
        if ended { apply(ice.endOfRemoteCandidates(now: instant)) }
    }

    func startGathering(_ completion: @escaping (Result<String, ParleyError>) -> Void,
                                build: @escaping () -> String) {
        gatheringWaiter = completion
        buildLocalSDP = build
        apply(ice.startGathering(hostAddresses: locals, now: instant))
        startTicking()
        flush()
        loop.schedule(after: configuration.gatheringTimeout) { [bound = LoopBound(self, loop: loop)] in
            bound.value.finishGathering(timedOut: true)
        }
    }

    func finishGathering(timedOut: Bool = false) {
        guard let waiter = gatheringWaiter, let build = buildLocalSDP else { return }
        gatheringWaiter = nil
        buildLocalSDP = nil
        if timedOut { Log.info(.webrtc, "pc: gathering not complete after \(configuration.gatheringTimeout); offering what we have") }
        guard !ice.localCandidates.isEmpty else {
            return waiter(.failure(ParleyError(.mediaClientLocalDescFailed,
                                               reason: "no local candidates (policy \(configuration.transportPolicy))")))
        }
        let sdp = build()
        localSDP = sdp
        timings.localDescription = elapsed(now)
        waiter(.success(sdp))
    }
}
