import ParleyCore
import ParleyStore
import PlatformCore
import ServerMedia
import Signaling
import TwiML

extension VoiceService {
    /// `<Dial>`: a child leg per noun some `DialRoute` carries (`<Client>`: every live connection
    /// listening for the identity and every push binding of it). All ring; the first to accept wins.
    func startDial(_ call: VoiceCall, request: DialRequest) {
        for noun in request.nouns {
            if case .conference(let conference) = noun { return joinConference(call, options: conference, request: request) }
        }
        var children: [(leg: CallLeg, route: any DialRoute)] = []
        let now = wallClock
        for noun in request.nouns {
            for route in dialRoutes {
                guard let leg = route.makeLeg(for: noun, of: call, request: request, now: now) else { continue }
                children.append((leg, route))
                break
            }
        }
        guard !children.isEmpty else {
            let kind = request.nouns.first.map(Self.nounName) ?? "nothing"
            let error = ParleyError(.notFound, reason: "<Dial> to \(kind) has no route: Parley dials only <Client> and <Conference> until the SIP gateway exists")
            call.unansweredDialError = error
            return deliver(.dialCompleted(DialOutcome(status: .failed)), to: call)
        }
        call.mediaGeneration += 1
        let dial = DialOperation(request: request, children: children.map(\.leg), generation: call.mediaGeneration)
        call.dial = dial
        for (leg, _) in children {
            try? store.insertCall(leg.record)
            legIndex[leg.sid] = call.sid
            setStatus(leg, .initiated)
        }
        for (leg, route) in children { route.ring(leg, of: call, engine: self) }
        guard calls[call.sid] === call, call.dial === dial else { return }
        let callSid = call.sid
        let generation = dial.generation
        let timeout = max(1, request.timeout)
        dial.ringTask = Task { [weak self, clock] in
            try? await clock.sleep(for: .seconds(timeout))
            guard !Task.isCancelled else { return }
            await self?.dialTimedOut(callSid: callSid, generation: generation)
        }
    }

    static func nounName(_ noun: TwiMLDialNoun) -> String {
        switch noun {
        case .client: "<Client>"
        case .number: "<Number>"
        case .sip: "<Sip>"
        case .conference: "<Conference>"
        }
    }

    /// A route alerted `leg`'s callee: a `<Dial>` child rings (`legRinging`), a REST-created call's
    /// leg is ringing.
    func legAlerted(_ call: VoiceCall, _ leg: CallLeg) {
        if leg === call.parent {
            if call.outbound != nil { setStatus(leg, .ringing) }
        } else {
            legRinging(call, leg)
        }
    }

    /// A route's callee cannot be reached or declined: the `<Dial>` child fails (`childFailed`),
    /// a REST-created call still ringing ends (`endOutbound`).
    func legRefused(_ call: VoiceCall, _ leg: CallLeg, status: CallStatus, error: ParleyError) {
        if leg === call.parent {
            if call.outbound != nil { endOutbound(call, status: status, error: error) }
        } else {
            childFailed(call, leg, status: status, error: error)
        }
    }

    /// The callee is being alerted: ringing for the leg and (once) for the caller, with ringback
    /// unless answerOnBridge (then the caller's SDK plays its own).
    func legRinging(_ call: VoiceCall, _ leg: CallLeg) {
        guard leg.record.status == .initiated || leg.record.status == .queued else { return }
        setStatus(leg, .ringing)
        guard let dial = call.dial, !dial.ringingSent else { return }
        dial.ringingSent = true
        call.parent.endpoint.calleeRinging(call.parent, engine: self)
        if !dial.request.answerOnBridge { playShared(.ringback(.us), to: call.parent) }
    }

    /// The callee of a `<Dial>` child still ringing answered (its route checked it may): the other
    /// children stop ringing, the leg is in progress, `confirm` tells its party so, the caller is
    /// answered, and the leg's media is set up from `offer` with `lease`.
    func answerChild(_ call: VoiceCall, _ leg: CallLeg, offer: String, lease: QuotaLease, confirm: () -> Void) {
        answerChild(call, leg, media: .offer(offer, lease), confirm: confirm)
    }

    /// How an answering leg's media comes: from its party's offer (a client), or made already (a remote party's).
    enum AnsweredMedia {
        case offer(String, QuotaLease)
        case ready(CallMediaAnswer)
    }

    func answerChild(_ call: VoiceCall, _ leg: CallLeg, media: AnsweredMedia, confirm: () -> Void) {
        guard let dial = call.dial else {
            if case .offer(_, let lease) = media { lease.release() }
            return
        }
        dial.ringTask?.cancel()
        dial.bridged = leg
        cancelInvitations(dial, except: leg, code: .callCancelled, reason: "answered elsewhere")
        leg.endpoint.cancel(leg, code: .callCancelled, reason: "answered on another device", engine: self)
        if let id = call.parent.mediaID { player.stop(session: id.rawValue) }
        setStatus(leg, .inProgress)
        confirm()
        if !call.isAnswered { answerParent(call) }
        switch media {
        case .offer(let offer, let lease):
            // A remote party's (SIP) codec is taken when the client offers it, so the two forward.
            let remote = call.parent.endpoint is RemoteLegEndpoint ? call.parent.mediaID.flatMap { mediaCodecs[$0] } : nil
            setUpMedia(for: leg, offer: offer, lease: lease, preferring: remote)
        case .ready(let answer): mediaReady(callSid: leg.sid, answer: answer, lease: nil)
        }
        if dial.request.timeLimit > 0 {
            let callSid = call.sid, legSid = leg.sid, limit = dial.request.timeLimit
            dial.limitTask = Task { [weak self, clock] in
                try? await clock.sleep(for: .seconds(limit))
                guard !Task.isCancelled else { return }
                await self?.timeLimitReached(callSid: callSid, legSid: legSid)
            }
        }
    }

    private func timeLimitReached(callSid: String, legSid: String) {
        guard let call = calls[callSid], let dial = call.dial, let leg = dial.bridged, leg.sid == legSid else { return }
        endChild(call, leg, status: .completed, error: nil, notifyClient: true)
    }

    /// Both legs have media: forward each one's RTP to the other.
    func bridge(_ call: VoiceCall, child: CallLeg) {
        guard let a = call.parent.mediaID, let b = child.mediaID else { return }
        player.stop(session: a.rawValue)
        player.stop(session: b.rawValue)
        let media = self.media
        let callSid = call.sid
        if let dial = call.dial { startDialRecording(call, dial: dial, caller: a, callee: b) }
        enqueueMediaOperation(call) { [weak self] in
            let ab = await media.forward(from: a, to: b)
            let ba = await media.forward(from: b, to: a)
            if !(ab && ba) {
                await self?.bridgeFailed(callSid: callSid)
            }
        }
    }

    private func bridgeFailed(callSid: String) {
        guard let call = calls[callSid], let leg = call.dial?.bridged else { return }
        Log.warning(.webrtc, "call \(callSid): the legs' media cannot be joined")
        endChild(call, leg, status: .failed, error: ParleyError(.mediaNoSupportedCodec,
                                                                  reason: "the two legs' media cannot be joined"),
                 notifyClient: true)
    }

    /// Runs media-server operations of one call in order.
    func enqueueMediaOperation(_ call: VoiceCall, _ operation: @escaping @Sendable () async -> Void) {
        let previous = call.mediaOperations
        call.mediaOperations = Task {
            await previous?.value
            await operation()
        }
    }

    private func dialTimedOut(callSid: String, generation: Int) {
        guard let call = calls[callSid], let dial = call.dial, dial.generation == generation, dial.bridged == nil else { return }
        for leg in dial.children where leg.isLive {
            childFailed(call, leg, status: .noAnswer,
                        error: ParleyError(.requestTimeout, reason: "no answer within \(dial.request.timeout) s"))
        }
    }

    /// An unanswered child leg is over; when none is left ringing, the `<Dial>` ends.
    func childFailed(_ call: VoiceCall, _ leg: CallLeg, status: CallStatus, error: ParleyError) {
        guard let dial = call.dial, leg.isLive else { return }
        leg.endpoint.cancel(leg, code: error.code == .requestTimeout ? .requestTimeout : .callCancelled,
                            reason: error.failureReason ?? error.code.text, engine: self)
        finishLeg(leg, status: status, error: error)
        guard dial.bridged == nil, dial.children.allSatisfy({ !$0.isLive }) else { return }
        let outcome = DialOutcome(status: DialCallStatus(status), callSid: leg.sid, duration: 0)
        finishDial(call, outcome: outcome, error: error)
    }

    /// The `<Dial>` is over: stop ringback and forwarding, and tell the interpreter.
    func finishDial(_ call: VoiceCall, outcome: DialOutcome, error: ParleyError?) {
        guard let dial = call.dial else { return }
        var outcome = outcome
        if let recorded = finishDialRecording(call, dial: dial) {
            (outcome.recordingURL, outcome.recordingSid, outcome.recordingDuration) = (recorded.url, recorded.sid, recorded.duration)
        }
        dial.ringTask?.cancel()
        dial.limitTask?.cancel()
        call.dial = nil
        for leg in dial.children { legIndex[leg.sid] = nil }
        if let a = call.parent.mediaID {
            player.stop(session: a.rawValue)
            let media = self.media
            enqueueMediaOperation(call) { await media.stopForwarding(to: a) }
        }
        if !call.isAnswered, let error { call.unansweredDialError = error }
        deliver(.dialCompleted(outcome), to: call)
    }

    /// `.cancelDial`: a REST redirect abandons the dial without reporting it.
    func cancelDial(_ call: VoiceCall) {
        leaveConference(call, reportToInterpreter: false)
        guard let dial = call.dial else { return }
        for leg in dial.children where leg.isLive {
            if leg === dial.bridged {
                endChild(call, leg, status: .completed, error: nil, notifyClient: true, reportToInterpreter: false)
            } else {
                leg.endpoint.cancel(leg, code: .callCancelled, reason: "the caller's call was redirected", engine: self)
                finishLeg(leg, status: .canceled, error: nil)
            }
        }
        dial.ringTask?.cancel()
        dial.limitTask?.cancel()
        _ = finishDialRecording(call, dial: dial)
        for leg in dial.children { legIndex[leg.sid] = nil }
        call.dial = nil
    }

    /// Stops ringing every child except `winner`.
    private func cancelInvitations(_ dial: DialOperation, except winner: CallLeg, code: ParleyError.Code, reason: String) {
        for leg in dial.children where leg !== winner && leg.isLive {
            leg.endpoint.cancel(leg, code: code, reason: reason, engine: self)
            finishLeg(leg, status: .canceled, error: nil)
        }
    }
}

extension DialCallStatus {
    init(_ status: CallStatus) {
        switch status {
        case .busy: self = .busy
        case .noAnswer: self = .noAnswer
        case .canceled: self = .canceled
        case .completed: self = .completed
        default: self = .failed
        }
    }
}
