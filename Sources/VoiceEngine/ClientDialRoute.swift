import ParleyCore
import ParleyCrypto
import ParleyStore
import Signaling
import TwiML

/// `<Client>`: a leg to a client identity of the caller's account, rung on every live signaling
/// connection listening for it and every push binding of it (the first to accept wins).
struct ClientDialRoute: DialRoute {
    func makeLeg(for noun: TwiMLDialNoun, of call: VoiceCall, request: DialRequest, now: Int64) -> CallLeg? {
        guard case .client(let client) = noun else { return nil }
        let record = CallRecord(sid: SID.make("CA"), accountSid: call.parent.record.accountSid,
                                parentCallSid: call.sid, applicationSid: call.parent.record.applicationSid,
                                from: request.callerId ?? call.parent.record.from, to: "client:\(client.identity)",
                                direction: "outbound-dial", status: .queued, startTime: now,
                                statusCallback: client.statusCallback,
                                statusCallbackMethod: client.statusCallback == nil ? nil : client.statusCallbackMethod.rawValue,
                                createdAt: now, updatedAt: now)
        let leg = CallLeg(record: record)
        leg.identity = client.identity
        leg.authToken = call.authToken
        leg.customParameters = client.parameters.map { ($0.name, $0.value) }
        leg.statusCallbackEvents = client.statusCallbackEvents.isEmpty ? ["completed"] : client.statusCallbackEvents.map(\.rawValue)
        return leg
    }

    func ring(_ leg: CallLeg, of call: VoiceCall, dial: DialOperation, engine: isolated VoiceService) {
        engine.ringClient(leg, call: call, dial: dial)
    }
}

extension VoiceService {
    /// Sends the invite for `leg` to its identity's connections and push bindings.
    func ringClient(_ leg: CallLeg, call: VoiceCall, dial: DialOperation) {
        guard let identity = leg.identity else { return }
        let key = ListenKey(accountSid: leg.record.accountSid, identity: identity)
        let sessionIDs = listeners[key] ?? []
        var params: [String: String] = [:]
        for (k, v) in leg.customParameters { params[k] = v }
        let incoming = Incoming(callSid: leg.sid, from: leg.record.from, to: leg.record.to, params: params,
                                callerInfo: CallerInfo(isVerified: nil))
        for id in sessionIDs {
            guard let session = sessions[id] else { continue }
            session.send(.incoming(incoming))
            session.callSids.insert(leg.sid)
            dial.invitedSessions[leg.sid, default: []].insert(id)
        }
        let bindings = (try? store.bindings(accountSid: key.accountSid, identity: identity, now: wallClock)) ?? []
        if let notifier, !bindings.isEmpty {
            dial.pendingPushes[leg.sid] = bindings.count
            let notice = IncomingCallNotice(kind: .invite, callSid: leg.sid, accountSid: key.accountSid,
                                            from: leg.record.from, to: leg.record.to, parameters: leg.customParameters,
                                            bridgeToken: SecureRandom.hex(byteCount: 16))
            leg.pushedBindings = bindings
            for binding in bindings {
                let callSid = call.sid, legSid = leg.sid
                Task { [weak self] in
                    let outcome = await notifier.notify(notice, binding: binding)
                    await self?.pushFinished(callSid: callSid, legSid: legSid, binding: binding, outcome: outcome)
                }
            }
        }
        let reached = !sessionIDs.isEmpty || (notifier != nil && !bindings.isEmpty)
        guard reached else {
            return childFailed(call, leg, status: .failed,
                               error: ParleyError(.temporarilyUnavailable, reason: "\(identity) is not connected and has no push binding"))
        }
        if !sessionIDs.isEmpty { legRinging(call, leg) }
    }

    private func pushFinished(callSid: String, legSid: String, binding: PushBinding, outcome: PushOutcome) {
        switch outcome {
        case .delivered:
            try? store.renewBinding(sid: binding.sid, expiresAt: wallClock + PushBinding.timeToLive)
        case .unregistered:
            _ = try? store.deleteBinding(accountSid: binding.accountSid, identity: binding.identity,
                                         deviceToken: binding.deviceToken)
            Log.info(.platform, "push binding \(binding.sid) removed: the provider says the device is unregistered")
        case .failed(let reason):
            Log.warning(.platform, "push to binding \(binding.sid) failed: \(reason)")
        }
        guard let call = calls[callSid], let dial = call.dial, let leg = dial.child(legSid), leg.isLive else { return }
        dial.pendingPushes[legSid, default: 1] -= 1
        if outcome == .delivered {
            legRinging(call, leg)
        } else if dial.pendingPushes[legSid] == 0, dial.invitedSessions[legSid]?.isEmpty ?? true, leg.record.status != .ringing {
            childFailed(call, leg, status: .failed,
                        error: ParleyError(.temporarilyUnavailable, reason: "\(leg.identity ?? "the callee") could not be reached"))
        }
    }
}
