import Foundation
import ParleyCore
import ParleyStore
import PlatformCore
import Signaling
import TwiML
import VoiceREST

extension VoiceService {
    /// The caller's leg is answered: in progress, its party told.
    func answerParent(_ call: VoiceCall) {
        guard !call.isAnswered, call.parent.isLive else { return }
        setStatus(call.parent, .inProgress)
        call.parent.endpoint.connected(call.parent, engine: self)
    }

    /// Moves a leg to `status`, writes the row, and sends its status callback.
    func setStatus(_ leg: CallLeg, _ status: CallStatus, error: ParleyError? = nil) {
        guard leg.record.status != status, !leg.record.status.isFinal else { return }
        let now = wallClock
        leg.record.status = status
        leg.record.updatedAt = now
        if status == .inProgress, leg.record.answerTime == nil { leg.record.answerTime = now }
        if status.isFinal {
            leg.record.endTime = now
            leg.record.duration = leg.record.answerTime.map { max(0, now - $0) } ?? 0
            if let error {
                leg.record.errorCode = error.code.rawValue
                leg.record.errorMessage = error.failureReason ?? error.code.text
            }
        }
        do { try store.updateCall(leg.record) } catch {
            Log.error(.platform, "call \(leg.sid): cannot store status \(status.rawValue): \(error)")
        }
        sendStatusCallback(leg)
    }

    private func sendStatusCallback(_ leg: CallLeg) {
        guard let url = leg.record.statusCallback, !url.isEmpty else { return }
        let event: String
        switch leg.record.status {
        case .initiated: event = "initiated"
        case .ringing: event = "ringing"
        case .inProgress: event = "answered"
        case .completed, .busy, .failed, .noAnswer, .canceled: event = "completed"
        case .queued: return
        }
        guard leg.statusCallbackEvents.contains(event) else { return }
        let method = TwiMLMethod(rawValue: (leg.record.statusCallbackMethod ?? "POST").uppercased()) ?? .post
        let parameters = CallParameters.statusCallback(leg, timestamp: RESTTime.rfc2822(wallClock))
        leg.callbackSequence += 1
        callbacks.enqueue(.init(url: url, method: method, parameters: parameters, authToken: leg.authToken), key: leg.sid)
    }

    /// A leg is over: final status, its media closed, its endpoint done with it.
    func finishLeg(_ leg: CallLeg, status: CallStatus, error: ParleyError?) {
        guard leg.isLive else { return }
        setStatus(leg, status, error: error)
        if let error { metrics.countCallError(code: error.code.rawValue) }
        if let id = leg.mediaID {
            leg.mediaID = nil
            closeMediaSession(id)
        }
        leg.endpoint.released(leg, engine: self)
    }

    /// Ends a child leg that was answered (or failed after accept): its party is hung up on, and
    /// the `<Dial>` completes so the caller's TwiML goes on.
    func endChild(_ call: VoiceCall, _ leg: CallLeg, status: CallStatus, error: ParleyError?, notifyClient: Bool,
                  reportToInterpreter: Bool = true) {
        guard leg.isLive else { return }
        // The record is final before the client hears of it (a client that reads the call back sees it ended).
        finishLeg(leg, status: status, error: error)
        if notifyClient { leg.endpoint.hangUp(leg, error: error, engine: self) }
        guard reportToInterpreter, let dial = call.dial, dial.bridged === leg else { return }
        let outcome = DialOutcome(status: DialCallStatus(status), callSid: leg.sid,
                                  duration: Int(leg.record.duration ?? 0))
        finishDial(call, outcome: outcome, error: error)
    }

    /// Ends the whole call: every child leg, the caller's leg, the TwiML.
    func endCall(_ call: VoiceCall, status: CallStatus, error: ParleyError?, notifyCaller: Bool = true) {
        guard calls[call.sid] === call else { return }
        // A REST-created call still ringing: its invites are withdrawn, whatever ends it.
        stopRinging(call, code: error?.code ?? .callCancelled, reason: error?.failureReason ?? "the call ended")
        calls[call.sid] = nil
        call.quotaLease?.release()
        call.timerTask?.cancel()
        // Twilio requests a <Dial action> however the dial ends, the caller hanging up included.
        let dialAction = dialOutcomeAtEnd(call).flatMap { call.interpreter?.callEnded(duringDial: $0) }
        call.interpreter = nil
        leaveConference(call, reportToInterpreter: false)
        if let dial = call.dial {
            dial.ringTask?.cancel()
            dial.limitTask?.cancel()
            let cancelCode: ParleyError.Code = error?.code == .requestTerminated ? .requestTerminated : .callCancelled
            for leg in dial.children where leg.isLive {
                if leg === dial.bridged {
                    finishLeg(leg, status: .completed, error: nil)
                    leg.endpoint.hangUp(leg, error: nil, engine: self)
                } else {
                    leg.endpoint.cancel(leg, code: cancelCode, reason: error?.failureReason ?? "the caller hung up", engine: self)
                    finishLeg(leg, status: .canceled, error: nil)
                }
            }
            _ = finishDialRecording(call, dial: dial)
            for leg in dial.children { legIndex[leg.sid] = nil }
            call.dial = nil
        }
        stopRecording(call, deliverResult: false)
        finishLeg(call.parent, status: status, error: error)
        if notifyCaller { call.parent.endpoint.hangUp(call.parent, error: error, engine: self) }
        legIndex[call.sid] = nil
        if case .fetch(let url, let method, let parameters)? = dialAction {
            // With the parent's final status; the answer is not executed (the call is gone).
            fetchDocument(call, url: url, method: method, parameters: parameters)
        }
        metrics.callEnded()
        Log.info(.platform, "call \(call.sid) ended: \(status.rawValue)\(error.map { " (\($0.code.rawValue))" } ?? "")")
    }

    /// How the running `<Dial>` ends when its call does: a bridged client `completed` (with its
    /// SID and duration), a conference `completed`, a dial still ringing `canceled`. Nil when no
    /// `<Dial>` runs.
    private func dialOutcomeAtEnd(_ call: VoiceCall) -> DialOutcome? {
        if call.conference != nil { return DialOutcome(status: .completed) }
        guard let dial = call.dial else { return nil }
        if let bridged = dial.bridged {
            let answered = bridged.record.answerTime ?? wallClock
            return DialOutcome(status: .completed, callSid: bridged.sid, duration: Int(max(0, wallClock - answered)))
        }
        return DialOutcome(status: .canceled, callSid: dial.children.count == 1 ? dial.children[0].sid : nil)
    }

    /// A leg's party is gone (its client's signaling expired, its media failed or closed).
    func legGone(callSid: String, sessionID: String?, error: ParleyError?) {
        guard let (call, leg) = callAndLeg(callSid) else {
            // An invite still ringing on a session that expired.
            return
        }
        if let sessionID, leg.client?.sessionID != sessionID {
            // Only alerted on that session: forget it.
            if leg !== call.parent { leg.client?.invitedSessions.remove(sessionID) }
            return
        }
        if call.parent === leg {
            endCall(call, status: call.isAnswered ? .completed : .failed, error: error, notifyCaller: error != nil)
        } else {
            endChild(call, leg, status: .completed, error: error, notifyClient: error != nil)
        }
    }

    /// `hangup` from a client.
    func hangupFromClient(_ hangup: Hangup, session: SignalingSession, ref: String?) {
        guard let (call, leg) = leg(hangup.callSid, of: session) else {
            return sendError(ParleyError(.callDoesNotExist, reason: "no call \(hangup.callSid) on this connection"),
                             to: session, ref: ref)
        }
        if call.parent === leg {
            if call.isAnswered {
                endCall(call, status: .completed, error: nil, notifyCaller: false)
            } else {
                endCall(call, status: .canceled, error: ParleyError(.requestTerminated, reason: "the caller hung up"),
                        notifyCaller: false)
            }
        } else {
            endChild(call, leg, status: .completed, error: nil, notifyClient: false)
        }
    }

    /// `cancel` from the caller before the call connected.
    func cancelOutgoing(_ reference: CallReference, session: SignalingSession, ref: String?) {
        let call = calls.values.first { c in
            c.parent.client?.sessionID == session.id
                && (c.sid == reference.callSid || (reference.callId != nil && c.parent.client?.clientCallID == reference.callId))
        }
        guard let call else {
            return sendError(ParleyError(.callDoesNotExist, reason: "no call to cancel"), to: session, ref: ref)
        }
        let error = ParleyError(.requestTerminated, reason: "the caller cancelled the call")
        endCall(call, status: call.isAnswered ? .completed : .canceled, error: call.isAnswered ? nil : error,
                notifyCaller: false)
    }
}

extension VoiceService: LiveCallControl {
    package func hangUp(callSid: String, status: String) async -> Bool {
        guard let (call, leg) = callAndLeg(callSid) else { return false }
        if call.parent === leg {
            let answered = call.isAnswered
            endCall(call, status: answered ? .completed : .canceled,
                    error: answered ? nil : ParleyError(.requestTerminated, reason: "hung up through the REST API"))
        } else if call.dial?.bridged === leg {
            endChild(call, leg, status: .completed, error: nil, notifyClient: true)
        } else {
            childFailed(call, leg, status: .canceled,
                        error: ParleyError(.requestTerminated, reason: "cancelled through the REST API"))
        }
        return true
    }

    package func redirect(callSid: String, url: String, method: String) async -> Bool {
        guard let call = calls[callSid], call.outbound == nil else { return false }  // not before a created call is answered
        let verb = TwiMLMethod(rawValue: method.uppercased()) ?? .post
        if call.interpreter == nil {
            call.pendingDocument = nil
            fetchDocument(call, url: url, method: verb, parameters: [])
        } else {
            deliver(.redirect(url: url, method: verb), to: call)
        }
        return true
    }
}
