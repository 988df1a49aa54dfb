import ParleyCore
import ParleyCrypto
import ParleyStore
import PlatformCore
import Signaling
import TwiML
import VoiceREST

/// A call created over REST that rings its callee: who was alerted, and what runs on answer.
/// Owned by `VoiceService` (actor-isolated there); never shared across threads.
final class OutboundRinging {
    var instructions: OutboundCallRequest.Instructions
    /// Signaling sessions the invite was sent to.
    var invitedSessions: Set<String> = []
    /// Push bindings notified, and how many have not answered yet.
    var pushedBindings: [PushBinding] = []
    var pendingPushes = 0
    var ringTask: Task<Void, Never>?

    init(instructions: OutboundCallRequest.Instructions) {
        self.instructions = instructions
    }
}

/// Calls created with `POST Calls.json`: the caller's leg is the callee's client. It rings like a
/// `<Dial><Client>` leg (every connection listening for the identity, every push binding; the
/// first `accept` wins); once answered the call's TwiML runs on it, as on any caller's leg.
extension VoiceService {
    package func createCall(_ request: OutboundCallRequest) throws(ParleyError) -> CallRecord {
        guard let account = try? store.account(sid: request.accountSid) else {
            throw ParleyError(.internalServer, reason: "the account \(request.accountSid) is gone")
        }
        let now = wallClock
        let record = CallRecord(sid: SID.make("CA"), accountSid: account.sid, applicationSid: request.applicationSid,
                                from: request.from, to: request.to, direction: "outbound-api", status: .queued,
                                startTime: now, statusCallback: request.statusCallback,
                                statusCallbackMethod: request.statusCallback == nil ? nil : request.statusCallbackMethod,
                                createdAt: now, updatedAt: now)
        let leg = CallLeg(record: record)
        leg.identity = Self.clientIdentity(request.to)
        leg.authToken = account.authToken
        leg.statusCallbackEvents = request.statusCallbackEvents.isEmpty ? ["completed"] : request.statusCallbackEvents
        do { try store.insertCall(record) } catch {
            throw ParleyError(.internalServer, reason: "cannot store the call: \(error)")
        }
        let call = VoiceCall(parent: leg, authToken: account.authToken, application: nil)
        let ringing = OutboundRinging(instructions: request.instructions)
        call.outbound = ringing
        calls[leg.sid] = call
        legIndex[leg.sid] = leg.sid
        metrics.callStarted()
        Log.info(.platform, "call \(leg.sid) created over REST to \(request.to)")
        setStatus(leg, .initiated)
        alert(call, ringing)
        if calls[call.sid] === call, call.outbound === ringing {
            let callSid = call.sid, seconds = max(1, request.timeout), ring = ObjectIdentifier(ringing)
            ringing.ringTask = Task { [weak self, clock] in
                try? await clock.sleep(for: .seconds(seconds))
                guard !Task.isCancelled else { return }
                await self?.outboundTimedOut(callSid: callSid, ring: ring)
            }
        }
        return leg.record
    }

    /// Sends the invite to the identity's connections and push bindings.
    private func alert(_ call: VoiceCall, _ ringing: OutboundRinging) {
        let leg = call.parent
        guard let identity = leg.identity else { return }
        let key = ListenKey(accountSid: leg.record.accountSid, identity: identity)
        let sessionIDs = (listeners[key] ?? []).filter { sessions[$0] != nil }
        let incoming = Incoming(callSid: leg.sid, from: leg.record.from, to: leg.record.to, callerInfo: CallerInfo(isVerified: nil))
        for id in sessionIDs {
            sessions[id]?.send(.incoming(incoming))
            sessions[id]?.callSids.insert(leg.sid)
            ringing.invitedSessions.insert(id)
        }
        let bindings = notifier == nil ? [] : (try? store.bindings(accountSid: key.accountSid, identity: identity, now: wallClock)) ?? []
        if let notifier, !bindings.isEmpty {
            ringing.pushedBindings = bindings
            ringing.pendingPushes = bindings.count
            let notice = IncomingCallNotice(kind: .invite, callSid: leg.sid, accountSid: key.accountSid, from: leg.record.from,
                                            to: leg.record.to, parameters: [], bridgeToken: SecureRandom.hex(byteCount: 16))
            for binding in bindings {
                let callSid = call.sid
                Task { [weak self] in
                    let outcome = await notifier.notify(notice, binding: binding)
                    await self?.outboundPushFinished(callSid: callSid, binding: binding, outcome: outcome)
                }
            }
        }
        guard !sessionIDs.isEmpty || !bindings.isEmpty else {
            return endOutbound(call, status: .failed,
                               error: ParleyError(.temporarilyUnavailable, reason: "\(identity) is not connected and has no push binding"))
        }
        if !sessionIDs.isEmpty { setStatus(leg, .ringing) }
    }

    private func outboundPushFinished(callSid: String, binding: PushBinding, outcome: PushOutcome) {
        maintainBinding(binding, after: outcome)
        guard let call = calls[callSid], let ringing = call.outbound else { return }
        ringing.pendingPushes -= 1
        if outcome == .delivered {
            setStatus(call.parent, .ringing)
        } else if ringing.pendingPushes == 0, ringing.invitedSessions.isEmpty, call.parent.record.status != .ringing {
            endOutbound(call, status: .failed,
                        error: ParleyError(.temporarilyUnavailable, reason: "\(call.parent.identity ?? "the callee") could not be reached"))
        }
    }

    /// A push's outcome for its binding: delivered renews it, a dead device token removes it.
    func maintainBinding(_ binding: PushBinding, after outcome: PushOutcome) {
        switch outcome {
        case .delivered:
            try? store.renewBinding(sid: binding.sid, expiresAt: wallClock + PushBinding.timeToLive)
        case .unregistered:
            _ = try? store.deleteBinding(accountSid: binding.accountSid, identity: binding.identity, deviceToken: binding.deviceToken)
            Log.info(.platform, "push binding \(binding.sid) removed: the provider says the device is unregistered")
        case .failed(let reason):
            Log.warning(.platform, "push to binding \(binding.sid) failed: \(reason)")
        }
    }

    private func outboundTimedOut(callSid: String, ring: ObjectIdentifier) {
        guard let call = calls[callSid], let ringing = call.outbound, ObjectIdentifier(ringing) == ring else { return }
        endOutbound(call, status: .noAnswer, error: ParleyError(.requestTimeout, reason: "no answer within the call's Timeout"))
    }

    /// `accept` for a ringing REST-created call; false if `accept` is for another kind of call.
    func acceptOutbound(_ accept: Accept, session: SignalingSession, ref: String?) -> Bool {
        guard let call = calls[accept.callSid], call.parent.record.direction == "outbound-api" else { return false }
        let leg = call.parent
        guard let ringing = call.outbound, leg.identity == session.identity, leg.record.accountSid == session.accountSid else {
            sendError(ParleyError(.callCancelled, reason: "the call was answered elsewhere or ended"), to: session, ref: ref)
            return true
        }
        let lease: QuotaLease
        do throws(ParleyError) {
            lease = try quotas.acquire(.mediaSession, for: session.quotaOwner)
        } catch {
            sendError(error, to: session, ref: ref)  // the call rings on, for the identity's other devices
            return true
        }
        ringing.invitedSessions.remove(session.id)
        stopRinging(call, code: .callCancelled, reason: "answered on another device")
        leg.sessionID = session.id
        session.callSids.insert(leg.sid)
        setStatus(leg, .inProgress)
        session.send(.connected(CallReference(callSid: leg.sid)), ref: ref)
        setUpMedia(for: leg, offer: accept.sdp, lease: lease)
        let callSid = call.sid, timeout = configuration.mediaConnectTimeout
        Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.mediaConnectDeadline(callSid: callSid)
        }
        switch ringing.instructions {
        case .url(let url, let method):
            fetchDocument(call, url: url, method: TwiMLMethod(rawValue: method.uppercased()) ?? .post, parameters: [])
        case .twiml(let document):
            call.pendingDocument = (document, url: "")
            startTwiMLIfReady(call)
        }
        return true
    }

    /// `reject` for a ringing REST-created call (busy: 31486, else 31603); false for other calls.
    func rejectOutbound(_ reject: Reject, session: SignalingSession, ref: String?) -> Bool {
        guard let call = calls[reject.callSid], call.parent.record.direction == "outbound-api" else { return false }
        guard let ringing = call.outbound, ringing.invitedSessions.contains(session.id) else {
            sendError(ParleyError(.callDoesNotExist, reason: "no ringing call \(reject.callSid)"), to: session, ref: ref)
            return true
        }
        ringing.invitedSessions.remove(session.id)
        session.callSids.remove(call.sid)
        let busy = reject.reason == .busy
        endOutbound(call, status: busy ? .busy : .failed,
                    error: busy ? ParleyError(.busyHere, reason: "\(session.identity) is busy")
                        : ParleyError(.decline, reason: "\(session.identity) rejected the call"))
        return true
    }

    /// Ends a REST-created call that is still ringing: its invitations are cancelled first.
    func endOutbound(_ call: VoiceCall, status: CallStatus, error: ParleyError) {
        let code: ParleyError.Code = [.requestTimeout, .requestTerminated].contains(error.code) ? error.code : .callCancelled
        stopRinging(call, code: code, reason: error.failureReason ?? error.code.text)
        endCall(call, status: status, error: error)
    }

    /// Sends `cancelled` to the sessions still alerted and a cancel push to the bindings; the call rings no more.
    func stopRinging(_ call: VoiceCall, code: ParleyError.Code, reason: String) {
        guard let ringing = call.outbound else { return }
        call.outbound = nil
        ringing.ringTask?.cancel()
        for id in ringing.invitedSessions {
            guard let session = sessions[id] else { continue }
            session.send(.cancelled(Cancelled(callSid: call.sid, code: code.rawValue, reason: reason)))
            session.callSids.remove(call.sid)
        }
        ringing.invitedSessions = []
        guard let notifier, !ringing.pushedBindings.isEmpty else { return }
        let leg = call.parent
        let notice = IncomingCallNotice(kind: .cancel, callSid: leg.sid, accountSid: leg.record.accountSid,
                                        from: leg.record.from, to: leg.record.to, parameters: [], bridgeToken: "")
        for binding in ringing.pushedBindings {
            Task { _ = await notifier.notify(notice, binding: binding) }
        }
    }

    package func cancelRinging(callSid: String) -> Bool {
        guard let call = calls[callSid], call.outbound != nil else { return false }
        endOutbound(call, status: .canceled, error: ParleyError(.requestTerminated, reason: "cancelled through the REST API"))
        return true
    }
}
