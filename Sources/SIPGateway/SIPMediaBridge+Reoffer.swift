import ParleyCore
import SDP
import SIP
import Synchronization
import VoiceEngine

/// Offer/answer again on a leg that has media (RFC 3264 §8): a phone's re-INVITE (hold,
/// resume, a new address) and ours (holding the phone). The leg keeps its port, its SDES key, its
/// `o=` session id (the version goes up by one for each new description) and the codec the call
/// settled on: a re-offer without it is refused (488) and the session goes on as it was.
extension SIPMediaBridge {
    /// Answers `offer`, a re-INVITE's body, on leg `id` and applies it: a new `c=`/port moves
    /// where the leg sends; `sendonly`, `inactive` or `c=0.0.0.0` (the phone holds) is answered
    /// `recvonly`/`inactive` and the leg stops sending. `heldByRemote` says whether the phone now holds.
    /// - Throws: 53404 with the refusal's status (488, 400) when the offer is not usable.
    package func answerReoffer(_ id: MediaLegID, offer: [UInt8]) async throws(ParleyError)
        -> (sdp: SessionDescription, heldByRemote: Bool) {
        guard var local = renegotiationLocal(id) else { throw ParleyError(.notFound, reason: "no SIP leg \(id) with media") }
        local.sessionVersion += 1
        let answer: SIPAudioAnswer
        do throws(SIPAudioRefusal) {
            answer = try SIPAudioNegotiation.answer(toOfferBody: offer, local: local)
        } catch {
            throw ParleyError(.mediaNoSupportedCodec, reason: "\(error.statusCode) \(error)")
        }
        try await apply(answer.parameters, to: id.rawValue)
        legs.withLock { $0[id.rawValue]?.local = local }
        return (answer.sdp, answer.parameters.isHeldByRemote)
    }

    /// Our offer for a re-INVITE on leg `id`: `a=sendonly` to hold the phone (we still send hold
    /// music), `a=sendrecv` to resume it (RFC 3264 §8.4); nil when the leg has no settled media.
    package func reoffer(_ id: MediaLegID, holding: Bool) -> SessionDescription? {
        guard var local = renegotiationLocal(id) else { return nil }
        local.sessionVersion += 1
        local.direction = holding ? .sendonly : .sendrecv
        let offer = SIPAudioOffer.make(local)
        legs.withLock {
            $0[id.rawValue]?.local = local
            $0[id.rawValue]?.offer = offer
        }
        return offer
    }

    /// Applies the phone's answer to our last ``reoffer(_:holding:)``.
    package func acceptReanswer(_ id: MediaLegID, sdp: [UInt8]) async throws(ParleyError) {
        guard let offer = legs.withLock({ $0[id.rawValue]?.offer }) else {
            throw ParleyError(.notFound, reason: "no SIP leg \(id) awaiting an answer")
        }
        let parameters: SIPAudioParameters
        do throws(SIPAudioRefusal) {
            parameters = try SIPAudioNegotiation.accept(answerBody: sdp, toOffer: offer)
        } catch {
            throw ParleyError(.mediaNoSupportedCodec, reason: "the answer is unusable: \(error.statusCode) \(error)")
        }
        try await apply(parameters, to: id.rawValue)
    }

    /// Our side for a new description of leg `id`: the codec and telephone-event in use only, SDES
    /// with the suite in use (on the profile in use) or none.
    private func renegotiationLocal(_ id: MediaLegID) -> SIPLocalAudio? {
        legs.withLock { table -> SIPLocalAudio? in
            guard let leg = table[id.rawValue], var local = leg.local, let current = leg.parameters else { return nil }
            local.codecs = [current.codec]
            local.telephoneEvents = current.telephoneEvent.map { [$0] } ?? []
            if let srtp = current.srtp {
                local.encryption = leg.proto.contains("SAVP") ? .required : .optional
                local.srtpSuites = [srtp.suite]
            } else {
                local.encryption = .none
            }
            return local
        }
    }
}
