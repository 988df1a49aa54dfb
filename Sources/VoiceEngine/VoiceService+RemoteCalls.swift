import Foundation
import ParleyCore
import ParleyStore
import PlatformCore
import TwiML

/// A call that arrives through another service (a SIP phone's INVITE), as the engine needs it.
package struct RemoteCallRequest: Sendable {
    package var accountSid: String
    /// `From` and `To` as the webhook shows them (`sip:alice@example.com`).
    package var from: String
    package var to: String
    /// What routes the call, first that is set: an application (Plivo's `app_id`), a URL (a SIP
    /// domain's VoiceUrl), else `directIdentity` is dialed as a client.
    package var applicationSid: String?
    package var voiceURL: String?
    package var voiceMethod = "POST"
    package var statusCallback: String?
    package var directIdentity: String?
    /// Parameters added to every webhook of the call (Twilio's `SipDomain`, `SipCallId`, `SipHeader_X-…`).
    package var parameters: [(String, String)] = []

    package init(accountSid: String, from: String, to: String) {
        self.accountSid = accountSid
        self.from = from
        self.to = to
    }
}

extension VoiceService {
    /// Starts a call whose caller is `party`, with its media already made (`media`, on the
    /// engine's bridge). Returns the call SID, or why it cannot start (the caller is then
    /// refused by its service).
    package func startRemoteCall(_ request: RemoteCallRequest, party: any RemoteParty,
                                 media: CallMediaAnswer) -> Result<String, ParleyError> {
        guard let account = try? store.account(sid: request.accountSid) else {
            return .failure(ParleyError(.internalServer, reason: "the caller's account is gone"))
        }
        var application: Application?
        if let sid = request.applicationSid, !sid.isEmpty {
            guard let app = try? store.application(sid: sid), app.accountSid == account.sid, app.voiceURL?.isEmpty == false else {
                return .failure(ParleyError(.applicationNotFound, reason: "no application \(sid) with a VoiceUrl"))
            }
            application = app
        } else if request.voiceURL?.isEmpty != false, request.directIdentity?.isEmpty != false {
            return .failure(ParleyError(.addressIncomplete, reason: "nothing routes a call to \(request.to)"))
        }
        let now = wallClock
        let record = CallRecord(sid: SID.make("CA"), accountSid: account.sid, applicationSid: application?.sid,
                                from: request.from, to: request.to, direction: "inbound", status: .queued, startTime: now,
                                statusCallback: application?.statusCallback ?? request.statusCallback,
                                statusCallbackMethod: application?.statusCallbackMethod, createdAt: now, updatedAt: now)
        let leg = CallLeg(record: record, endpoint: RemoteLegEndpoint(party: party))
        leg.authToken = account.authToken
        leg.customParameters = request.parameters
        do { try store.insertCall(record) } catch {
            return .failure(ParleyError(.internalServer, reason: "cannot store the call: \(error)"))
        }
        let call = VoiceCall(parent: leg, authToken: account.authToken, application: application)
        calls[leg.sid] = call
        legIndex[leg.sid] = leg.sid
        leg.mediaID = media.id
        mediaIndex[media.id] = leg.sid
        mediaCodecs[media.id] = media.codec
        // The remote party's media flows from its offer on (its service made it before this call).
        call.mediaConnected = true
        metrics.callStarted()
        setStatus(leg, .initiated)
        setStatus(leg, .ringing)
        if let application, let url = application.voiceURL {
            fetchDocument(call, url: url, method: TwiMLMethod(rawValue: application.voiceMethod.uppercased()) ?? .post, parameters: [])
        } else if let url = request.voiceURL, !url.isEmpty {
            fetchDocument(call, url: url, method: TwiMLMethod(rawValue: request.voiceMethod.uppercased()) ?? .post, parameters: [])
        } else {
            var dial = TwiMLDial(nouns: [.client(TwiMLClient(identity: request.directIdentity ?? "", parameters: []))])
            dial.answerOnBridge = true
            dial.timeout = configuration.defaultRingTimeout
            call.pendingDocument = (TwiMLResponse(verbs: [.dial(dial)]), url: publicBaseURL() + "/v1/direct-dial")
            startTwiMLIfReady(call)
        }
        return .success(leg.sid)
    }

    /// The remote party hung up (BYE, or CANCEL before the answer).
    package func remoteHangup(callSid: String) {
        guard let (call, leg) = callAndLeg(callSid) else { return }
        if call.parent === leg {
            let answered = call.isAnswered
            endCall(call, status: answered ? .completed : .canceled,
                    error: answered ? nil : ParleyError(.requestTerminated, reason: "the caller hung up"), notifyCaller: false)
        } else {
            endChild(call, leg, status: .completed, error: nil, notifyClient: false)
        }
    }

    /// The remote party holds the call (a phone's re-INVITE with `a=sendonly`, `a=inactive` or
    /// `c=0.0.0.0`, RFC 3264 §8.4) or resumes it: as a client's `hold`.
    package func remoteHold(callSid: String, hold: Bool) {
        guard let (call, leg) = callAndLeg(callSid) else { return }
        applyHold(hold, call: call, leg: leg)
    }

    /// Keys the remote party pressed outside its media (SIP INFO, RFC 6086): as its RFC 4733 events.
    package func remoteDigits(_ digits: String, callSid: String) {
        guard let (call, leg) = callAndLeg(callSid) else { return }
        for digit in digits { receiveMediaDigit(digit, call: call, leg: leg) }
    }

    /// Media events of legs whose media another service made (it passes them on here).
    package nonisolated func deliverMediaEvent(_ event: CallMediaEvent) {
        mediaEventSink.yield(event)
    }
}

extension VoiceService {
    /// Adds a service that places the calls `<Dial>` nouns it takes ask for (after the client route).
    package func register(dialer: any RemoteDialer) {
        register(RemoteDialRoute(dialer: dialer))
    }

    func remoteLegAlerted(_ legSid: String) {
        guard let (call, leg) = callAndLeg(legSid), leg.isLive else { return }
        legAlerted(call, leg)
    }

    /// A dialed remote leg was not reached; `responseCode` (the far end's final status) goes on
    /// its status callbacks as `SipResponseCode`, as the vendor's SIP legs report it.
    func remoteLegFailed(_ legSid: String, error: ParleyError, responseCode: Int? = nil) {
        guard let (call, leg) = callAndLeg(legSid), leg.isLive else { return }
        if let responseCode { leg.customParameters.append(("SipResponseCode", String(responseCode))) }
        let status: CallStatus = switch error.code.rawValue {
        case 31486: .busy
        case 31480, 31408: .noAnswer
        default: .failed
        }
        legRefused(call, leg, status: status, error: error)
    }

    /// A dialed remote leg answered with its media made: a `<Dial>` child is bridged as a client's
    /// answer is; the leg of a REST-created call runs the call's TwiML.
    func remoteLegAnswered(_ legSid: String, media: CallMediaAnswer) {
        guard let (call, leg) = callAndLeg(legSid), leg.isLive,
              leg === call.parent ? call.outbound != nil : call.dial?.bridged == nil else {
            let bridge = self.media
            Task { await bridge.close(media.id) }
            return
        }
        (leg.endpoint as? RemoteLegEndpoint)?.isAnswered = true
        if leg === call.parent {
            answerOutbound(call, media: .ready(media), confirm: {})
        } else {
            answerChild(call, leg, media: .ready(media), confirm: {})
        }
    }
}
