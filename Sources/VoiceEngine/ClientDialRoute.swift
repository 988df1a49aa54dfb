import ParleyCore
import ParleyCrypto
import ParleyStore
import Signaling
import TwiML
import VoiceREST

/// `<Client>` and `To=client:NAME`: a leg to a client identity of the caller's account, rung on
/// every live signaling connection listening for it and every push binding of it (the first to
/// accept wins; `VoiceService+ClientAnswer` takes the answer).
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
        let leg = CallLeg(record: record, endpoint: ClientLegEndpoint(identity: client.identity))
        leg.authToken = call.authToken
        leg.customParameters = client.parameters.map { ($0.name, $0.value) }
        leg.statusCallbackEvents = client.statusCallbackEvents.isEmpty ? ["completed"] : client.statusCallbackEvents.map(\.rawValue)
        return leg
    }

    func outboundEndpoint(for request: OutboundCallRequest) -> (any LegEndpoint)? {
        guard request.to.hasPrefix("client:") else { return nil }
        return ClientLegEndpoint(identity: VoiceService.clientIdentity(request.to))
    }

    func ring(_ leg: CallLeg, of call: VoiceCall, engine: isolated VoiceService) {
        engine.ringClient(leg, call: call)
    }
}

extension VoiceService {
    /// Sends the invite for `leg` to its identity's connections and push bindings.
    func ringClient(_ leg: CallLeg, call: VoiceCall) {
        guard let client = leg.client else { return }
        let key = ListenKey(accountSid: leg.record.accountSid, identity: client.identity)
        let sessionIDs = (listeners[key] ?? []).filter { sessions[$0] != nil }
        var params: [String: String] = [:]
        for (k, v) in leg.customParameters { params[k] = v }
        let incoming = Incoming(callSid: leg.sid, from: leg.record.from, to: leg.record.to, params: params,
                                callerInfo: CallerInfo(isVerified: nil))
        for id in sessionIDs {
            guard let session = sessions[id] else { continue }
            session.send(.incoming(incoming))
            session.callSids.insert(leg.sid)
            client.invitedSessions.insert(id)
        }
        let bindings = notifier == nil ? [] : (try? store.bindings(accountSid: key.accountSid, identity: client.identity, now: wallClock)) ?? []
        if let notifier, !bindings.isEmpty {
            client.pendingPushes = bindings.count
            client.pushedBindings = bindings
            let notice = IncomingCallNotice(kind: .invite, callSid: leg.sid, accountSid: key.accountSid,
                                            from: leg.record.from, to: leg.record.to, parameters: leg.customParameters,
                                            bridgeToken: SecureRandom.hex(byteCount: 16))
            for binding in bindings {
                let legSid = leg.sid
                Task { [weak self] in
                    let outcome = await notifier.notify(notice, binding: binding)
                    await self?.pushFinished(legSid: legSid, binding: binding, outcome: outcome)
                }
            }
        }
        guard !sessionIDs.isEmpty || !bindings.isEmpty else {
            return legRefused(call, leg, status: .failed,
                              error: ParleyError(.temporarilyUnavailable, reason: "\(client.identity) is not connected and has no push binding"))
        }
        if !sessionIDs.isEmpty { legAlerted(call, leg) }
    }

    private func pushFinished(legSid: String, binding: PushBinding, outcome: PushOutcome) {
        maintainBinding(binding, after: outcome)
        guard let (call, leg) = callAndLeg(legSid), leg.isLive, let client = leg.client else { return }
        if leg === call.parent, call.outbound == nil { return }  // a REST-created call answered meanwhile
        client.pendingPushes -= 1
        if outcome == .delivered {
            legAlerted(call, leg)
        } else if client.pendingPushes == 0, client.invitedSessions.isEmpty, leg.record.status != .ringing {
            legRefused(call, leg, status: .failed,
                       error: ParleyError(.temporarilyUnavailable, reason: "\(client.identity) could not be reached"))
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
}
