import AccessToken
import Foundation
import ParleyCore
import ParleyStore
import PlatformCore
import ServerMedia
import Signaling
import TwiML

extension VoiceService {
    /// `invite` from a client: a new call from `client:<identity>`. With an outgoing application in
    /// the token's voice grant the application's TwiML routes it; without one, `To` names a client
    /// identity and the call is dialed directly (as `<Dial answerOnBridge="true"><Client>`).
    func startOutgoingCall(_ invite: Invite, session: SignalingSession, ref: String?) {
        guard let grant = session.token.voice else {
            return failInvite(ParleyError(.forbidden, reason: "the access token has no voice grant"), session: session, ref: ref)
        }
        let to = (invite.to ?? invite.params["To"] ?? "").trimmingCharacters(in: .whitespaces)
        var application: Application?
        if let appSid = grant.outgoingApplicationSid, !appSid.isEmpty {
            guard let app = try? store.application(sid: appSid), app.accountSid == session.accountSid else {
                return failInvite(ParleyError(.applicationNotFound, reason: "no application \(appSid) in this account"),
                                  session: session, ref: ref)
            }
            guard app.voiceURL?.isEmpty == false else {
                return failInvite(ParleyError(.applicationNotFound, reason: "application \(appSid) has no VoiceUrl"),
                                  session: session, ref: ref)
            }
            application = app
        } else if Self.clientIdentity(to).isEmpty {
            return failInvite(ParleyError(.addressIncomplete, reason: "To is empty: name a client identity"),
                              session: session, ref: ref)
        }
        guard let account = try? store.account(sid: session.accountSid) else {
            return failInvite(ParleyError(.internalServer, reason: "the token's account is gone"), session: session, ref: ref)
        }
        let callLease: QuotaLease, mediaLease: QuotaLease
        do throws(ParleyError) {
            callLease = try quotas.acquire(.call, for: session.quotaOwner)
            mediaLease = try quotas.acquire(.mediaSession, for: session.quotaOwner)
        } catch {
            return failInvite(error, session: session, ref: ref)  // a lease already taken is given back as it goes
        }
        let now = wallClock
        let record = CallRecord(sid: SID.make("CA"), accountSid: account.sid, applicationSid: application?.sid,
                                from: "client:\(session.identity)", to: to, direction: "inbound", status: .queued,
                                startTime: now, statusCallback: application?.statusCallback,
                                statusCallbackMethod: application?.statusCallbackMethod, createdAt: now, updatedAt: now)
        let leg = CallLeg(record: record, endpoint: ClientLegEndpoint(identity: session.identity, sessionID: session.id,
                                                                      clientCallID: invite.callId))
        leg.authToken = account.authToken
        var params = grant.outgoingApplicationParams.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        for (k, v) in invite.params.sorted(by: { $0.key < $1.key }) where k != "To" {
            params.removeAll { $0.0 == k }
            params.append((k, v))
        }
        leg.customParameters = params
        do { try store.insertCall(record) } catch {
            return failInvite(ParleyError(.internalServer, reason: "cannot store the call: \(error)"), session: session, ref: ref)
        }
        let call = VoiceCall(parent: leg, authToken: account.authToken, application: application)
        call.quotaLease = callLease
        calls[leg.sid] = call
        legIndex[leg.sid] = leg.sid
        session.callSids.insert(leg.sid)
        metrics.callStarted()
        session.send(.callCreated(CallCreated(callId: invite.callId, callSid: leg.sid)), ref: ref)
        // As for any incoming call: initiated, then ringing while the application decides.
        setStatus(leg, .initiated)
        setStatus(leg, .ringing)
        setUpMedia(for: leg, offer: invite.sdp, lease: mediaLease)

        let callSid = leg.sid
        let timeout = configuration.mediaConnectTimeout
        Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.mediaConnectDeadline(callSid: callSid)
        }
        if let application, let url = application.voiceURL {
            let method = TwiMLMethod(rawValue: application.voiceMethod.uppercased()) ?? .post
            fetchDocument(call, url: url, method: method, parameters: [])
        } else {
            // Without an application the caller's own params reach the callee, as `<Parameter>`s would.
            let parameters = call.parent.customParameters.map { TwiMLParameter(name: $0.0, value: $0.1) }
            let client = TwiMLDialNoun.client(TwiMLClient(identity: Self.clientIdentity(to), parameters: parameters))
            var dial = TwiMLDial(nouns: [client])
            dial.answerOnBridge = true
            dial.timeout = configuration.defaultRingTimeout
            call.pendingDocument = (TwiMLResponse(verbs: [.dial(dial)]), url: publicBaseURL() + "/v1/direct-dial")
            startTwiMLIfReady(call)
        }
    }

    /// `client:bob` → `bob`; anything else as given.
    static func clientIdentity(_ to: String) -> String {
        to.hasPrefix("client:") ? String(to.dropFirst("client:".count)) : to
    }

    /// An invite refused before a call exists: an error reply to the request.
    func failInvite(_ error: ParleyError, session: SignalingSession, ref: String?) {
        Log.info(.signaling, "invite from \(session.identity) refused: \(error)")
        metrics.countCallError(code: error.code.rawValue)
        sendError(error, to: session, ref: ref)
    }

    /// Creates the leg's WebRTC session from the client's offer and sends the answer back. `lease`
    /// (a media-session quota unit) is given back when the session ends, however it ends.
    /// `preferred`: the codec of the leg it will be bridged to, taken when offered (no transcoding).
    func setUpMedia(for leg: CallLeg, offer: String, lease: QuotaLease, preferring preferred: CallAudioCodec? = nil) {
        let callSid = leg.sid
        let media = self.media
        let sink = mediaEventSink
        Task { [weak self] in
            do throws(ParleyError) {
                let answer = try await media.createLegMedia(offer: offer, preferring: preferred) { event in
                    if case .ended = event { lease.release() }
                    sink.yield(event)
                }
                await self?.mediaReady(callSid: callSid, answer: answer, lease: lease)
            } catch {
                lease.release()
                await self?.mediaSetupFailed(callSid: callSid, error: error)
            }
        }
    }

    func mediaReady(callSid: String, answer: CallMediaAnswer, lease: QuotaLease?) {
        if let lease { mediaLeases[answer.id] = lease }
        guard let leg = liveLeg(callSid) else {
            closeMediaSession(answer.id)
            return
        }
        leg.mediaID = answer.id
        mediaIndex[answer.id] = callSid
        mediaCodecs[answer.id] = answer.codec
        leg.endpoint.mediaAnswered(leg, sdp: answer.sdp, engine: self)
        // Bridge when the second of the two legs has its media session (either may be last).
        if let (call, _) = callAndLeg(callSid), let bridged = call.dial?.bridged,
           leg === bridged || leg === call.parent {
            bridge(call, child: bridged)
        }
    }

    private func mediaSetupFailed(callSid: String, error: ParleyError) {
        guard let (call, leg) = callAndLeg(callSid) else { return }
        Log.info(.webrtc, "call \(callSid): media setup failed: \(error)")
        if call.parent === leg {
            endCall(call, status: .failed, error: error)
        } else {
            endChild(call, leg, status: .failed, error: error, notifyClient: true)
        }
    }

    func mediaConnectDeadline(callSid: String) {
        guard let call = calls[callSid], !call.mediaConnected else { return }
        endCall(call, status: .failed, error: ParleyError(.mediaConnection, reason: "the caller's media did not connect"))
    }

    /// Media events from the media bridge, in order.
    func mediaEvent(_ event: CallMediaEvent) {
        if case .ended(let id, _) = event { mediaLeases.removeValue(forKey: id)?.release() }
        guard let callSid = mediaIndex[event.id], let (call, leg) = callAndLeg(callSid) else { return }
        switch event {
        case .connected:
            guard call.parent === leg else { return }
            call.mediaConnected = true
            if let (generation, source) = call.pendingPlayback {
                call.pendingPlayback = nil
                startPlayback(callSid: call.sid, generation: generation, source: source)
            }
            if let request = call.pendingRecord {
                call.pendingRecord = nil
                startRecording(call, request: request)
            }
            attachConferenceMedia(call)
        case .ended(let id, let failure):
            mediaIndex[id] = nil
            mediaCodecs[id] = nil
            leg.mediaID = nil
            legGone(callSid: callSid, sessionID: nil, error: failure)
        case .digit(_, let digit):
            receiveMediaDigit(digit, call: call, leg: leg)
        }
    }

    /// Closes a leg's media in the background (for WebRTC, close_notify to the peer).
    func closeMediaSession(_ id: MediaLegID) {
        player.stop(session: id.rawValue)
        mediaLeases.removeValue(forKey: id)?.release()
        mediaIndex[id] = nil
        mediaCodecs[id] = nil
        let media = self.media
        Task { await media.close(id) }
    }

    /// The live call and leg with `callSid` (parent or child).
    func callAndLeg(_ callSid: String) -> (VoiceCall, CallLeg)? {
        guard let parentSid = legIndex[callSid], let call = calls[parentSid] else { return nil }
        if callSid == parentSid { return (call, call.parent) }
        guard let child = call.dial?.child(callSid) else { return nil }
        return (call, child)
    }

    func liveLeg(_ callSid: String) -> CallLeg? { callAndLeg(callSid)?.1 }
}
