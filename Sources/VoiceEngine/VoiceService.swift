import AccessToken
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore
import PlatformCore
import PushNotifications
import ServerMedia
import Signaling
import TwiML
import VoiceREST

/// The voice platform's call engine: signaling sessions, who listens for which identity, live
/// calls with their TwiML, `<Dial>` fan-out to live connections and push bindings, bridging legs
/// on the media server, server-side media, status callbacks.
///
/// An actor: every state change happens on it, and its methods never suspend in the middle of
/// one. Slow work (webhooks, speech synthesis, fetching audio, media setup) runs in tasks whose
/// results come back as new calls into the actor, which re-check that the call still exists.
package actor VoiceService {
    package struct Configuration: Sendable {
        /// A dropped signaling socket may resume its session this long.
        package var resumeWindow: Duration = .seconds(30)
        /// Clients ping at least this often (seconds; announced in `welcome`).
        package var heartbeat = 20
        /// `<Dial>` ring time when the document gives none (TwiML default: 30 s).
        package var defaultRingTimeout = 30
        /// Caller's media must connect this soon after the invite.
        package var mediaConnectTimeout: Duration = .seconds(15)
        /// Where `<Record>` files go.
        package var recordingsDirectory = "./recordings"
        /// What held parties hear: music (true) or silence.
        package var holdMusic = true
        /// The time source of the engine's timers (ring timeouts, time limits, TwiML pauses, the
        /// resume window, media connect deadlines); tests give a `VirtualClock`.
        package var clock: any MonotonicClock = SystemClock()

        package init() {}
    }

    let configuration: Configuration
    let store: any PlatformStore
    /// What carries the legs' media (WebRTC sessions for clients).
    let media: any CallMediaBridge
    let verifier: AccessTokenVerifier
    let metrics: ServerMetrics
    let player: CallMediaPlayer
    let speech: SpeechSynthesizer
    let fetcher: MediaFetcher
    let webhooks: WebhookClient
    let callbacks: StatusCallbackQueue
    let notifier: (any InviteNotifier)?
    let publicBaseURL: @Sendable () -> String
    /// Per-identity and per-key limits on connections, calls and media sessions.
    let quotas: QuotaLedger
    /// Who serves `room.*` requests (nil: they are answered with 31100).
    nonisolated let roomSignaling: (any RoomSignalingHandler)?
    /// What room signaling is told of sessions (dropped, resumed, ended), in the order it happened.
    nonisolated let roomNotices = SerialWork()
    /// Who carries the leg each `<Dial>` noun or REST-created call asks for, asked in order.
    private(set) var dialRoutes: [any DialRoute] = [ClientDialRoute()]

    var sessions: [String: SignalingSession] = [:]
    var listeners: [ListenKey: [String]] = [:]
    /// Live calls by parent call SID.
    var calls: [String: VoiceCall] = [:]
    /// Every live leg (parent and child) by call SID → its call's parent SID.
    var legIndex: [String: String] = [:]
    /// A leg's media → the leg's call SID.
    var mediaIndex: [MediaLegID: String] = [:]
    /// A leg's media → its negotiated codec.
    var mediaCodecs: [MediaLegID: CallAudioCodec] = [:]
    /// A leg's media → its media-session quota unit, given back as soon as the engine lets the
    /// media go (its `.ended` event gives it back too, whichever comes first).
    var mediaLeases: [MediaLegID: QuotaLease] = [:]
    /// Live conferences by account and name; ended ones (most recent first kept) for REST.
    var conferences: [ConferenceKey: ConferenceRoom] = [:]
    var endedConferences: [ConferenceSummary] = []
    /// The engine's timers run on this clock (`Configuration.clock`).
    nonisolated let clock: any MonotonicClock
    /// The origin of the TwiML interpreter's milliseconds, on `clock`.
    let epoch: MonotonicInstant
    /// The origin of recording arrival times: media runs in real time, whatever `clock` is.
    let mediaEpoch = SystemClock.now
    /// Media events, consumed in order by `runMediaEvents()`.
    nonisolated let mediaEventSink: AsyncStream<CallMediaEvent>.Continuation
    private let mediaEvents: AsyncStream<CallMediaEvent>

    package init(configuration: Configuration, store: any PlatformStore, media: any CallMediaBridge,
         verifier: AccessTokenVerifier, metrics: ServerMetrics, player: CallMediaPlayer, speech: SpeechSynthesizer,
         fetcher: MediaFetcher, webhooks: WebhookClient, pushProviders: [String: any PushProvider], quotas: QuotaLedger,
         roomSignaling: (any RoomSignalingHandler)? = nil, publicBaseURL: @escaping @Sendable () -> String) {
        self.configuration = configuration
        self.roomSignaling = roomSignaling
        clock = configuration.clock
        epoch = configuration.clock.now
        self.store = store
        self.media = media
        self.verifier = verifier
        self.metrics = metrics
        self.player = player
        self.speech = speech
        self.fetcher = fetcher
        self.webhooks = webhooks
        callbacks = StatusCallbackQueue(webhooks: webhooks, clock: configuration.clock)
        notifier = pushProviders.isEmpty ? nil : PushNotifier(providers: pushProviders)
        self.publicBaseURL = publicBaseURL
        self.quotas = quotas
        (mediaEvents, mediaEventSink) = AsyncStream<CallMediaEvent>.makeStream()
    }

    /// Feeds media-server events to the engine until `shutdown()`.
    package func runMediaEvents() async {
        for await event in mediaEvents { mediaEvent(event) }
    }

    /// Milliseconds on the engine's monotonic clock (the TwiML interpreter's time base).
    var nowMilliseconds: Int64 { epoch.duration(to: clock.now).wholeNanoseconds / 1_000_000 }

    /// Seconds since the epoch (store timestamps).
    nonisolated var wallClock: Int64 { Int64(Date().timeIntervalSince1970) }

    // MARK: - Sessions

    /// What `attach` did with a hello.
    enum AttachOutcome: Equatable {
        case attached(id: String, resumed: Bool)
        /// A new session would exceed the identity's or key's connection quota (31429).
        case refused(ParleyError)
    }

    /// A client said hello with a verified token: a new session (if its identity and key are
    /// under their connection quota), or the one it resumes, which from now on answers to this
    /// token's key.
    func attach(token: VerifiedToken, socket: SignalingSocket, resume: String?, ref: String?) -> AttachOutcome {
        if let resume, let session = sessions[resume], session.token.accountSid == token.accountSid,
           session.token.identity == token.identity {
            session.token = SessionCredentials(token)
            session.attach(socket)
            let live = session.callSids.filter { legIndex[$0] != nil }.sorted()
            socket.send(.resumed(Resumed(session: session.id, calls: live)), ref: ref)
            Log.info(.signaling, "session \(session.id) resumed by \(token.identity) (\(live.count) calls)")
            tellRoomSignaling(session.id, reachable: true)
            return .attached(id: session.id, resumed: true)
        }
        let lease: QuotaLease
        do throws(ParleyError) {
            lease = try quotas.acquire(.connection, for: QuotaOwner(token))
        } catch {
            Log.info(.signaling, "hello from \(token.identity) refused: \(error)")
            return .refused(error)
        }
        let id = SecureRandom.hex(byteCount: 12)
        let session = SignalingSession(id: id, token: token, socket: socket, connectionLease: lease)
        sessions[id] = session
        metrics.signalingSessionsChanged(sessions.count)
        socket.send(.welcome(Welcome(session: id, identity: token.identity,
                                     resumeWindow: Int(configuration.resumeWindow.components.seconds),
                                     heartbeat: configuration.heartbeat)), ref: ref)
        return .attached(id: id, resumed: false)
    }

    /// The session's socket closed. After a drop the session stays for the resume window, then its
    /// calls end with 53001 and its listens are dropped. A client that closed on purpose (its close
    /// frame came first, with 1000) is done: the session ends now, and with it its quota unit.
    func detach(sessionID: String, socket: SignalingSocket, finished: Bool) {
        guard let session = sessions[sessionID] else { return }
        guard session.socket === socket else { return }  // already resumed on another socket
        session.detach()
        if finished {
            Log.info(.signaling, "session \(sessionID) of \(session.identity) closed by its client")
            return end(session, error: ParleyError(.signalingConnectionDisconnected,
                                                   reason: "the client closed its signaling connection"))
        }
        tellRoomSignaling(sessionID, reachable: false)
        let window = configuration.resumeWindow
        session.expiryTask = Task { [weak self, clock] in
            try? await clock.sleep(for: window)
            guard !Task.isCancelled else { return }
            await self?.expire(sessionID: sessionID)
        }
    }

    private func expire(sessionID: String) {
        guard let session = sessions[sessionID], session.socket == nil else { return }
        Log.info(.signaling, "session \(sessionID) of \(session.identity) expired")
        let error = ParleyError(.signalingConnectionDisconnected, reason: "the client's signaling connection was lost")
        end(session, error: error)
    }

    /// Ends a session for good: its calls end with `error` (their parties told), it stops
    /// listening, and its connection quota unit is given back. The socket, if any, stays open.
    func end(_ session: SignalingSession, error: ParleyError) {
        removeListener(session)  // first, so TwiML that goes on after a failed <Dial> cannot ring it again
        session.expiryTask?.cancel()
        for sid in session.callSids { legGone(callSid: sid, sessionID: session.id, error: error) }
        sessions[session.id] = nil
        session.connectionLease.release()
        metrics.signalingSessionsChanged(sessions.count)
        if let roomSignaling {
            let id = session.id
            roomNotices.post { await roomSignaling.ended(connection: id) }
        }
    }

    /// Room signaling hears when a session's socket drops and when it is resumed.
    private func tellRoomSignaling(_ id: String, reachable: Bool) {
        guard let roomSignaling else { return }
        roomNotices.post { await roomSignaling.connection(id, reachable: reachable) }
    }

    private func removeListener(_ session: SignalingSession) {
        guard session.listening else { return }
        session.listening = false
        listeners[session.listenKey]?.removeAll { $0 == session.id }
        if listeners[session.listenKey]?.isEmpty == true { listeners[session.listenKey] = nil }
    }

    // MARK: - Messages

    /// One decoded message from a session's client.
    func handle(_ envelope: SignalingEnvelope, sessionID: String) {
        guard let session = sessions[sessionID] else { return }
        let ref = envelope.id
        switch envelope.message {
        case .listen:
            guard session.token.voice?.incomingAllow == true else {
                return session.send(.error(SignalingErrorBody(code: .forbidden,
                                                              message: "the access token does not allow incoming calls")), ref: ref)
            }
            if !session.listening {
                session.listening = true
                listeners[session.listenKey, default: []].append(session.id)
            }
            session.send(.listening, ref: ref)
        case .unlisten:
            removeListener(session)
        case .invite(let invite):
            startOutgoingCall(invite, session: session, ref: ref)
        case .accept(let accept):
            acceptInvitation(accept, session: session, ref: ref)
        case .reject(let reject):
            rejectInvitation(reject, session: session, ref: ref)
        case .cancel(let reference):
            cancelOutgoing(reference, session: session, ref: ref)
        case .hangup(let hangup):
            hangupFromClient(hangup, session: session, ref: ref)
        case .hold(let hold):
            setHold(hold, session: session, ref: ref)
        case .dtmf(let dtmf):
            receiveDigits(dtmf, session: session, ref: ref)
        case .message(let message):
            relayMessage(message, session: session, ref: ref)
        case .iceRestart(let restart):
            restartICE(restart, session: session, ref: ref)
        case .ping:
            session.send(.pong, ref: ref)
        case .pong:
            break
        case .hello:
            session.send(.error(SignalingErrorBody(code: .malformedRequest, message: "hello was already received")), ref: ref)
        default:
            let type = envelope.message.type
            let why = type.sender == .client ? "\(type.rawValue): room signaling is not served yet"
                : "\(type.rawValue) is sent by the server, not the client"
            session.send(.error(SignalingErrorBody(code: .malformedRequest, message: why)), ref: ref)
        }
    }

    func sendError(_ error: ParleyError, to session: SignalingSession, ref: String?) {
        session.send(.error(SignalingErrorBody(code: error.code.rawValue, message: error.failureReason ?? error.code.text)),
                     ref: ref)
    }

    /// The live leg `callSid` and its call, if `session` is a party to it.
    func leg(_ callSid: String, of session: SignalingSession) -> (VoiceCall, CallLeg)? {
        guard let parentSid = legIndex[callSid], let call = calls[parentSid] else { return nil }
        let leg = callSid == parentSid ? call.parent : call.dial?.child(callSid)
        guard let leg, leg.client?.sessionID == session.id else { return nil }
        return (call, leg)
    }

    /// Adds a route after the ones there (the client route first): the nouns and `To`s earlier
    /// routes do not take reach it.
    func register(_ route: any DialRoute) {
        dialRoutes.append(route)
    }

    // MARK: - Shutdown

    package func shutdown() {
        for call in Array(calls.values) {
            stopRinging(call, code: .callCancelled, reason: "the server is shutting down")
            endCall(call, status: .completed, error: ParleyError(.serviceUnavailable, reason: "the server is shutting down"))
        }
        for session in sessions.values { session.expiryTask?.cancel() }
        mediaEventSink.finish()
    }
}
