import ParleyCore
import ParleyStore
import ServerMedia
import Signaling
import TwiML

extension VoiceService {
    /// The other party of a bridged leg.
    func counterpart(of leg: CallLeg, in call: VoiceCall) -> CallLeg? {
        guard let bridged = call.dial?.bridged else { return nil }
        return leg === call.parent ? bridged : (leg === bridged ? call.parent : nil)
    }

    /// `hold` from a party of a bridged call: the other party hears hold music (or silence) and
    /// neither hears the other until the hold ends.
    func setHold(_ hold: Hold, session: SignalingSession, ref: String?) {
        guard let (call, leg) = leg(hold.callSid, of: session) else {
            return sendError(ParleyError(.callDoesNotExist, reason: "no call \(hold.callSid) on this connection"),
                             to: session, ref: ref)
        }
        applyHold(hold.hold, call: call, leg: leg)
    }

    /// Puts `leg` on hold or takes it off (a client's `hold`, a phone's re-INVITE): the other
    /// party hears hold music (or silence) and neither hears the other until the hold ends; a
    /// remote other party (a SIP phone) is told, so it is held too (re-INVITE `a=sendonly`).
    func applyHold(_ hold: Bool, call: VoiceCall, leg: CallLeg) {
        guard leg.isOnHold != hold else { return }
        leg.isOnHold = hold
        guard let other = counterpart(of: leg, in: call) else { return }
        (other.endpoint as? RemoteLegEndpoint)?.party?.held(hold, callSid: other.sid)
        guard let a = leg.mediaID, let b = other.mediaID else { return }
        let media = self.media
        if hold {
            enqueueMediaOperation(call) {
                await media.stopForwarding(to: b)
                await media.stopForwarding(to: a)
            }
            playShared(configuration.holdMusic ? .holdMusic : .silence, to: other)
        } else if other.isOnHold {
            // The other party still holds this one: only its hold music for the other stops.
            player.stop(session: b.rawValue)
        } else {
            player.stop(session: a.rawValue)
            player.stop(session: b.rawValue)
            enqueueMediaOperation(call) {
                _ = await media.forward(from: a, to: b)
                _ = await media.forward(from: b, to: a)
            }
        }
    }

    /// `dtmf` over signaling: digits for the caller's `<Gather>`, or relayed to the other party.
    func receiveDigits(_ dtmf: DTMF, session: SignalingSession, ref: String?) {
        guard let (call, leg) = leg(dtmf.callSid, of: session) else {
            return sendError(ParleyError(.callDoesNotExist, reason: "no call \(dtmf.callSid) on this connection"),
                             to: session, ref: ref)
        }
        if let other = counterpart(of: leg, in: call) { other.endpoint.relayDigits(dtmf.digits, to: other, engine: self) }
        for digit in dtmf.digits where digit != "w" { digitPressed(digit, call: call, leg: leg) }
    }

    /// An RFC 4733 key from a leg's media (already forwarded to the other party by the bridge).
    func receiveMediaDigit(_ digit: Character, call: VoiceCall, leg: CallLeg) {
        digitPressed(digit, call: call, leg: leg)
    }

    private func digitPressed(_ digit: Character, call: VoiceCall, leg: CallLeg) {
        guard leg === call.parent else { return }
        if call.conference != nil { return conferenceDigit(digit, call: call) }
        if let dial = call.dial, let bridged = dial.bridged {
            if digit == "*", dial.request.hangupOnStar {
                endChild(call, bridged, status: .completed, error: nil, notifyClient: true)
            }
            return
        }
        if recordingDigit(digit, call: call) { return }
        deliver(.digit(digit), to: call)
    }

    /// `message` from a party: delivered to the other party of the bridged call, at most 10 a
    /// minute per call.
    func relayMessage(_ message: CallMessage, session: SignalingSession, ref: String?) {
        func fail(_ code: ParleyError.Code, _ reason: String) {
            session.send(.messageFailed(MessageFailure(callSid: message.callSid, messageId: message.messageId,
                                                       code: code.rawValue, reason: reason)), ref: ref)
        }
        guard let (call, leg) = leg(message.callSid, of: session) else {
            return fail(.callDoesNotExist, "no call \(message.callSid) on this connection")
        }
        let micros = nowMilliseconds * 1000
        guard session.rateLimiter.allow(callSid: call.sid, now: micros) else {
            return fail(.tooManyRequests, "more than 10 call messages in a minute")
        }
        var relayed = message
        guard let other = counterpart(of: leg, in: call) else {
            return fail(.notFound, "the call has no connected party to receive the message")
        }
        relayed.callSid = other.sid
        guard other.endpoint.relay(relayed, to: other, engine: self) else {
            return fail(.notFound, "the call has no connected party to receive the message")
        }
        session.send(.messageSent(MessageAck(callSid: message.callSid, messageId: message.messageId)), ref: ref)
    }

    /// `iceRestart`: new ICE credentials for the leg's media session; the answer comes back as `answer`.
    func restartICE(_ restart: IceRestart, session: SignalingSession, ref: String?) {
        guard let (_, leg) = leg(restart.callSid, of: session), let mediaID = leg.mediaID else {
            return sendError(ParleyError(.callDoesNotExist, reason: "no call with media \(restart.callSid) on this connection"),
                             to: session, ref: ref)
        }
        let media = self.media
        let callSid = restart.callSid
        let sessionID = session.id
        Task { [weak self] in
            do throws(ParleyError) {
                let sdp = try await media.restart(mediaID, offer: restart.sdp)
                await self?.sendToSession(sessionID, .answer(Answer(callSid: callSid, sdp: sdp)), ref: ref)
            } catch {
                await self?.sendErrorToSession(sessionID, error, ref: ref)
            }
        }
    }

    func sendToSession(_ id: String, _ message: SignalingMessage, ref: String?) {
        sessions[id]?.send(message, ref: ref)
    }

    func sendErrorToSession(_ id: String, _ error: ParleyError, ref: String?) {
        guard let session = sessions[id] else { return }
        sendError(error, to: session, ref: ref)
    }
}
