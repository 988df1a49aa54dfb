import ParleyCore
import ParleyCrypto
import ParleyStore
import PlatformCore
import Signaling
import TwiML
import VoiceREST

/// A call created over REST while it rings its callee: what runs on answer. Who was alerted is
/// the leg's endpoint's (`ClientLegEndpoint`).
/// Owned by `VoiceService` (actor-isolated there); never shared across threads.
final class OutboundRinging {
    var instructions: OutboundCallRequest.Instructions
    var ringTask: Task<Void, Never>?

    init(instructions: OutboundCallRequest.Instructions) {
        self.instructions = instructions
    }
}

/// Calls created with `POST Calls.json`: the caller's leg is the callee, reached through the first
/// `DialRoute` that takes `To` (`ClientDialRoute` for `client:NAME`: every connection listening for
/// the identity, every push binding; the first `accept` wins). Once answered the call's TwiML runs
/// on it, as on any caller's leg.
extension VoiceService {
    package func createCall(_ request: OutboundCallRequest) throws(ParleyError) -> CallRecord {
        guard let account = try? store.account(sid: request.accountSid) else {
            throw ParleyError(.internalServer, reason: "the account \(request.accountSid) is gone")
        }
        guard let (route, endpoint) = dialRoutes.lazy.compactMap({ route in route.outboundEndpoint(for: request).map { (route, $0) } }).first else {
            throw ParleyError(.notFound, reason: "no route reaches \(request.to)")
        }
        let now = wallClock
        let record = CallRecord(sid: SID.make("CA"), accountSid: account.sid, applicationSid: request.applicationSid,
                                from: request.from, to: request.to, direction: "outbound-api", status: .queued,
                                startTime: now, statusCallback: request.statusCallback,
                                statusCallbackMethod: request.statusCallback == nil ? nil : request.statusCallbackMethod,
                                createdAt: now, updatedAt: now)
        let leg = CallLeg(record: record, endpoint: endpoint)
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
        route.ring(leg, of: call, engine: self)
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

    private func outboundTimedOut(callSid: String, ring: ObjectIdentifier) {
        guard let call = calls[callSid], let ringing = call.outbound, ObjectIdentifier(ringing) == ring else { return }
        endOutbound(call, status: .noAnswer, error: ParleyError(.requestTimeout, reason: "no answer within the call's Timeout"))
    }

    /// The callee of a REST-created call answered (its route checked it may): its invitations
    /// elsewhere stop, the leg is in progress, `confirm` tells its party so, its media is set up
    /// from `offer` with `lease`, and the call's TwiML starts.
    func answerOutbound(_ call: VoiceCall, offer: String, lease: QuotaLease, confirm: () -> Void) {
        answerOutbound(call, media: .offer(offer, lease), confirm: confirm)
    }

    /// As above, for a callee whose media comes made (a remote party's: it flows already).
    func answerOutbound(_ call: VoiceCall, media: AnsweredMedia, confirm: () -> Void) {
        guard let ringing = call.outbound else {
            if case .offer(_, let lease) = media { lease.release() }
            return
        }
        let leg = call.parent
        stopRinging(call, code: .callCancelled, reason: "answered on another device")
        setStatus(leg, .inProgress)
        confirm()
        switch media {
        case .offer(let offer, let lease):
            setUpMedia(for: leg, offer: offer, lease: lease)
            let callSid = call.sid, timeout = configuration.mediaConnectTimeout
            Task { [weak self, clock] in
                try? await clock.sleep(for: timeout)
                await self?.mediaConnectDeadline(callSid: callSid)
            }
        case .ready(let answer):
            mediaReady(callSid: leg.sid, answer: answer, lease: nil)
            call.mediaConnected = true
        }
        switch ringing.instructions {
        case .url(let url, let method):
            fetchDocument(call, url: url, method: TwiMLMethod(rawValue: method.uppercased()) ?? .post, parameters: [])
        case .twiml(let document):
            call.pendingDocument = (document, url: "")
            startTwiMLIfReady(call)
        }
    }

    /// Ends a REST-created call that is still ringing: its invitations are cancelled first.
    func endOutbound(_ call: VoiceCall, status: CallStatus, error: ParleyError) {
        let code: ParleyError.Code = [.requestTimeout, .requestTerminated].contains(error.code) ? error.code : .callCancelled
        stopRinging(call, code: code, reason: error.failureReason ?? error.code.text)
        endCall(call, status: status, error: error)
    }

    /// The leg's invitations are withdrawn (`LegEndpoint.cancel`); the call rings no more.
    func stopRinging(_ call: VoiceCall, code: ParleyError.Code, reason: String) {
        guard let ringing = call.outbound else { return }
        call.outbound = nil
        ringing.ringTask?.cancel()
        call.parent.endpoint.cancel(call.parent, code: code, reason: reason, engine: self)
    }

    package func cancelRinging(callSid: String) -> Bool {
        guard let call = calls[callSid], call.outbound != nil else { return false }
        endOutbound(call, status: .canceled, error: ParleyError(.requestTerminated, reason: "cancelled through the REST API"))
        return true
    }
}
