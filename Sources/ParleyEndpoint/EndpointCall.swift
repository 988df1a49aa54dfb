import Synchronization

/// How a call stands.
public enum EndpointCallState: Sendable, Hashable {
    /// Outgoing: not placed yet, or the INVITE is on its way. Incoming: ringing here.
    case idle, calling, ringing, answered, ended
}

/// How a call ended.
public enum EndpointCallOutcome: Sendable, Hashable {
    /// An answered call ended; `byUs` when this side hung up.
    case hungUp(byUs: Bool)
    /// Refused: busy, declined, no answer, cancelled (the far end's status in the error).
    case rejected(EndpointError)
    /// An invalid destination or an offer with no audio we can take.
    case invalid(EndpointError)
}

/// What outgoing and incoming calls share: mute, hold, keys, hang-up, the call's UUID (its
/// SIP Call-ID) and waiting for it to end. Not made directly: see ``Outgoing`` and ``Incoming``.
/// `@unchecked Sendable` only because the class is not final: its state is in one `Mutex`.
public class EndpointCall: @unchecked Sendable {
    let endpoint: Endpoint
    let callState = Mutex(CallState())

    struct CallState {
        var id: String?
        var phase = EndpointCallState.idle
        var outcome: EndpointCallOutcome?
        var muted = false
        var onHold = false
        var waiters: [CheckedContinuation<EndpointCallOutcome, Never>] = []
        var answerWaiters: [CheckedContinuation<EndpointError?, Never>] = []
    }

    init(endpoint: Endpoint, id: String?, phase: EndpointCallState) {
        self.endpoint = endpoint
        callState.withLock {
            $0.id = id
            $0.phase = phase
        }
    }

    /// The call's UUID: its SIP Call-ID (the seed's `getCallUUID` for this call); nil before it is placed.
    public var callUUID: String? { callState.withLock { $0.id } }

    public var state: EndpointCallState { callState.withLock { $0.phase } }

    /// How it ended; nil while it goes on.
    public var outcome: EndpointCallOutcome? { callState.withLock { $0.outcome } }

    public var isMuted: Bool { callState.withLock { $0.muted } }
    public var isOnHold: Bool { callState.withLock { $0.onHold } }

    /// Stops sending the microphone's audio (silence goes instead) (the seed's `mute`).
    public func mute() { setMuted(true) }

    /// Sends the microphone's audio again (the seed's `unmute`).
    public func unmute() { setMuted(false) }

    private func setMuted(_ muted: Bool) {
        guard let id = callState.withLock({ s -> String? in
            s.muted = muted
            return s.id
        }) else { return }
        endpoint.run { ua in ua.calls[id]?.audio?.isMuted = muted }
    }

    /// Holds the call (the seed's `hold`): a re-INVITE with `a=sendonly` (RFC 3264 §8.4) and the
    /// audio device stopped for this call.
    public func hold() { setHold(true) }

    /// Resumes a held call (the seed's `unhold`): a re-INVITE with `a=sendrecv`.
    public func unhold() { setHold(false) }

    private func setHold(_ hold: Bool) {
        guard let id = callState.withLock({ s -> String? in
            guard s.phase == .answered else { return nil }
            s.onHold = hold
            return s.id
        }) else { return }
        endpoint.run { ua in try? ua.calls[id]?.setHold(hold) }
    }

    /// Presses keys (the seed's `sendDigits`): 0–9, `*`, `#` (and A–D) as RFC 4733 events.
    /// - Throws: ``EndpointError/invalidArgument`` for other characters (nothing is sent).
    public func sendDigits(_ digits: String) throws(EndpointError) {
        let keys = Set("0123456789*#ABCDabcd".utf8)
        guard !digits.isEmpty, digits.utf8.count <= 64, digits.utf8.allSatisfy(keys.contains) else {
            throw .invalid("digits \"\(digits)\": only 0–9, *, #, A–D (1–64 of them)")
        }
        guard let id = callState.withLock({ $0.phase == .answered ? $0.id : nil }) else {
            throw EndpointError(code: EndpointError.invalidState, reason: "digits need an answered call")
        }
        endpoint.run { ua in try? ua.calls[id]?.sendDigits(digits) }
    }

    /// Ends the call (the seed's `hangup`): BYE once answered, CANCEL while it rings out, 486
    /// to an incoming call still ringing.
    public func hangup() {
        guard let id = callState.withLock({ $0.id }) else { return }
        endpoint.run { ua in ua.calls[id]?.hangup() }
    }

    /// Waits until the call ends; returns how.
    public func waitForEnd() async -> EndpointCallOutcome {
        await withCheckedContinuation { continuation in
            let done = callState.withLock { s -> EndpointCallOutcome? in
                if let outcome = s.outcome { return outcome }
                s.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Waits until the call is answered; throws how it ended otherwise.
    func waitForAnswer() async throws(EndpointError) {
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<EndpointError?, Never>) in
            let done = callState.withLock { s -> EndpointError?? in
                if s.phase == .answered { return .some(nil) }
                if let outcome = s.outcome { return .some(Self.error(outcome)) }
                s.answerWaiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
        if let failure { throw failure }
    }

    static func error(_ outcome: EndpointCallOutcome) -> EndpointError {
        switch outcome {
        case .rejected(let error), .invalid(let error): error
        case .hungUp: EndpointError(code: EndpointError.invalidState, reason: "the call ended")
        }
    }

    /// Takes an event of the call (loop thread); returns what resumes its waiters, which the
    /// endpoint calls once the delegate callback is queued.
    @discardableResult
    func update(_ event: CallEvent) -> () -> Void {
        var outcome: EndpointCallOutcome?
        switch event {
        case .calling: callState.withLock { $0.phase = .calling }
        case .ringing: callState.withLock { $0.phase = .ringing }
        case .answered:
            let waiters = callState.withLock { s in
                s.phase = .answered
                defer { s.answerWaiters = [] }
                return s.answerWaiters
            }
            return { for waiter in waiters { waiter.resume(returning: nil) } }
        case .rejected(let error): outcome = .rejected(error)
        case .invalid(let error): outcome = .invalid(error)
        case .hungUp(let byUs): outcome = .hungUp(byUs: byUs)
        case .incoming, .digit: break
        }
        guard let outcome else { return {} }
        let (waiters, answerWaiters) = callState.withLock { s in
            s.phase = .ended
            s.outcome = outcome
            defer { (s.waiters, s.answerWaiters) = ([], []) }
            return (s.waiters, s.answerWaiters)
        }
        return {
            for waiter in waiters { waiter.resume(returning: outcome) }
            for waiter in answerWaiters { waiter.resume(returning: Self.error(outcome)) }
        }
    }

    /// The delegate callback for `event` (delegate queue); each subclass maps its own.
    func notify(_ delegate: any EndpointDelegate, of event: CallEvent) {
        if case .digit(let digit) = event { delegate.onIncomingDigit(digit) }
    }
}
