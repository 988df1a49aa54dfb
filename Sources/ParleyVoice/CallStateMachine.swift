import ParleyCore
import Signaling

/// The life of one call as a value: inputs from signaling, media and the app go in, the actions
/// the `Call` must carry out come out (send a message, apply the answer, start audio, tell the
/// delegate, tear down). No I/O and no clock, so tests drive it directly (swift-nio style).
///
/// A call is connected when the server said `connected` and its media (ICE + DTLS) is up, in
/// either order. It fails to connect if it ends before that, and disconnects after.
struct CallStateMachine {
    enum Input: Equatable {
        case callCreated(sid: String)
        case ringing
        case answer(sdp: String)
        case signalingConnected
        case mediaConnected
        case mediaFailed(ParleyError)
        case hangup(code: Int?, reason: String?)
        case serverError(code: Int, message: String)
        case signalingLost
        case disconnectRequested
        /// The signaling socket dropped; the channel is resuming the session.
        case signalingInterrupted
        case signalingResumed
        /// ICE lost the path (no media or consent for a while); `mediaFailed` follows after 30 s.
        case mediaInterrupted
        case mediaRecovered
        /// The reconnect timer started with `generation` ran out.
        case reconnectTimeout(generation: Int)
        /// The restart timer started with `generation` ran out: media may still be down.
        case restartTimeout(generation: Int)
    }

    enum Notification: Equatable {
        case ringing, connected, reconnected
        case reconnecting(ParleyError)
        case failedToConnect(ParleyError)
        case disconnected(ParleyError?)
    }

    enum Action: Equatable {
        case send(SignalingMessage)
        case applyAnswer(String)
        case startAudio
        /// New ICE credentials and an offer sent as `iceRestart` (RFC 8445 §9).
        case restartICE
        /// Yield `.reconnectTimeout(generation:)` after the given time.
        case startReconnectTimer(generation: Int, after: Duration)
        /// Yield `.restartTimeout(generation:)` after the given time.
        case startRestartTimer(generation: Int, after: Duration)
        /// Drop the signaling socket and resume the session on a new one: an answer overdue this
        /// long means the socket is stalled (TCP backs off exponentially through an outage, so the
        /// old connection may stay silent long after the network is back).
        case reviveSignaling
        case notify(Notification)
        case tearDown
    }

    let callId: String
    private(set) var state: CallState = .connecting
    private(set) var sid: String?
    private var isSignalingConnected = false
    private var isMediaConnected = false
    private var isAudioStarted = false
    private var hasAnswer = false
    private var isSignalingDown = false
    private var isMediaDown = false
    /// An ICE-restart offer was sent and its answer has not come yet.
    private var isRestartingICE = false
    private var reconnectGeneration = 0
    private var restartGeneration = 0
    /// Why the call is reconnecting (the first loss), reported if it gives up.
    private var reconnectError: ParleyError?
    /// How long a connected call may reconnect before it disconnects with the error: 30 s from
    /// `isReconnectingWithError`, as Twilio's Voice SDK gives its ICE restarts (the JS SDK's
    /// `BACKOFF_CONFIG.max`). Media is declared lost after 8 s of silence (`ICEAgent`'s
    /// `disconnectedTimeout`), so an outage of up to about 38 s is survived.
    static let reconnectWindow = Duration.seconds(30)
    /// While media is down, ICE is restarted again this often (when the previous restart's checks
    /// found nothing), so checks keep going out and a path that comes back is found within
    /// about two seconds, also after ICE consent expired on either side (RFC 7675 §5.1).
    static let restartInterval = Duration.seconds(5)

    init(callId: String, sid: String? = nil) {
        self.callId = callId
        self.sid = sid
    }

    var isEnded: Bool { state == .disconnected }
    var wasConnected: Bool { isSignalingConnected && isMediaConnected }

    mutating func handle(_ input: Input) -> [Action] {
        guard !isEnded else { return [] }
        switch input {
        case .callCreated(let sid):
            self.sid = sid
            return []
        case .ringing:
            guard state == .connecting else { return [] }
            state = .ringing
            return [.notify(.ringing)]
        case .answer(let sdp):
            if isRestartingICE {  // the answer to our ICE-restart offer
                isRestartingICE = false
                return [.applyAnswer(sdp)]
            }
            guard !hasAnswer else { return [] }
            hasAnswer = true
            return [.applyAnswer(sdp)]
        case .signalingConnected:
            isSignalingConnected = true
            return connectIfReady()
        case .mediaConnected:
            isMediaConnected = true
            var actions: [Action] = []
            if !isAudioStarted {
                isAudioStarted = true
                actions.append(.startAudio)
            }
            return actions + connectIfReady()
        case .mediaFailed(let error):
            return end(error: error, tellServer: true)
        case .hangup(let code, let reason):
            if code == nil, isSignalingConnected, state == .connecting || state == .ringing {
                // The server answered (`connected`) and ended the call before our media was up
                // (a `<Hangup>` first): the call did connect, briefly, and the app hears both.
                state = .connected
                return [.notify(.connected)] + end(error: nil, tellServer: false)
            }
            return end(error: code.map { ParleyError(ParleyError.Code(rawValue: $0), reason: reason) }, tellServer: false)
        case .serverError(let code, let message):
            return end(error: ParleyError(ParleyError.Code(rawValue: code), reason: message), tellServer: sid != nil)
        case .signalingLost:
            return end(error: ParleyError(.signalingConnectionDisconnected, reason: "the signaling connection closed"),
                       tellServer: false)
        case .disconnectRequested:
            return end(error: nil, tellServer: true)
        case .signalingInterrupted:
            guard state == .connected || state == .reconnecting else {
                return end(error: ParleyError(.signalingConnectionDisconnected, reason: "the signaling connection dropped"),
                           tellServer: false)
            }
            isSignalingDown = true
            return startReconnecting(ParleyError(.signalingConnectionDisconnected, reason: "the signaling connection dropped"))
        case .signalingResumed:
            guard isSignalingDown else { return [] }
            isSignalingDown = false
            // A media loss seen while signaling was down restarts ICE now that an offer can be sent.
            // An offer or answer in flight may have been lost with the socket: restart again.
            guard isMediaDown else { return reconnectedIfRecovered() }
            return restartICE()
        case .mediaInterrupted:
            guard state == .connected || state == .reconnecting else { return [] }
            isMediaDown = true
            let actions = startReconnecting(ParleyError(.mediaConnection, reason: "media connection lost"))
            return actions + (isRestartingICE ? [scheduleRestart()] : restartICE())
        case .mediaRecovered:
            guard isMediaDown else { return [] }
            isMediaDown = false
            restartGeneration += 1  // no more restarts; an answer still in flight is applied when it comes
            return reconnectedIfRecovered()
        case .reconnectTimeout(let generation):
            guard state == .reconnecting, generation == reconnectGeneration else { return [] }
            return end(error: reconnectError ?? ParleyError(.mediaConnection, reason: "reconnection timed out"),
                       tellServer: !isSignalingDown)
        case .restartTimeout(let generation):
            guard generation == restartGeneration, isMediaDown else { return [] }
            guard isRestartingICE, !isSignalingDown else { return restartICE() }
            // No answer in a whole interval: `signalingResumed` restarts on the new socket.
            return [.reviveSignaling, scheduleRestart()]
        }
    }

    /// A new ICE restart (RFC 8445 §9) and the timer for the next one; while signaling is down
    /// nothing, since the offer could not be sent (`signalingResumed` restarts).
    private mutating func restartICE() -> [Action] {
        guard !isSignalingDown else { return [] }
        isRestartingICE = true
        return [.restartICE, scheduleRestart()]
    }

    private mutating func scheduleRestart() -> Action {
        restartGeneration += 1
        return .startRestartTimer(generation: restartGeneration, after: Self.restartInterval)
    }

    private mutating func startReconnecting(_ error: ParleyError) -> [Action] {
        guard state == .connected else { return [] }  // already reconnecting: one notification, one timer
        state = .reconnecting
        reconnectError = error
        reconnectGeneration += 1
        return [.notify(.reconnecting(error)), .startReconnectTimer(generation: reconnectGeneration, after: Self.reconnectWindow)]
    }

    private mutating func reconnectedIfRecovered() -> [Action] {
        guard state == .reconnecting, !isSignalingDown, !isMediaDown else { return [] }
        state = .connected
        reconnectError = nil
        return [.notify(.reconnected)]
    }

    private mutating func connectIfReady() -> [Action] {
        guard isSignalingConnected, isMediaConnected, state == .connecting || state == .ringing else { return [] }
        state = .connected
        return [.notify(.connected)]
    }

    /// Ends the call. Before it connected that is a failure (or, when the app hangs up first, a
    /// plain disconnect); the server hears `cancel` before the call is answered, `hangup` after.
    private mutating func end(error: ParleyError?, tellServer: Bool) -> [Action] {
        let connected = state == .connected || state == .reconnecting
        state = .disconnected
        var actions: [Action] = []
        if tellServer {
            if connected || (isSignalingConnected && sid != nil) {
                if let sid { actions.append(.send(.hangup(Hangup(callSid: sid, code: error?.code.rawValue, reason: error?.failureReason)))) }
            } else {
                actions.append(.send(.cancel(CallReference(callSid: sid, callId: sid == nil ? callId : nil))))
            }
        }
        actions.append(.tearDown)
        if connected || error == nil {
            actions.append(.notify(.disconnected(error)))
        } else if let error {
            actions.append(.notify(.failedToConnect(error)))
        }
        return actions
    }
}
