/// A call ringing here (the seed's `PlivoIncoming`), given to ``EndpointDelegate/onIncomingCall(_:)``
/// and ``Endpoint/incomingCalls``.
public final class Incoming: EndpointCall, @unchecked Sendable {
    /// The caller's URI (From), e.g. `sip:alice@example.com`.
    public let from: String
    /// The INVITE's `X-` headers (the seed's `extraHeaders`).
    public let extraHeaders: [String: String]

    init(endpoint: Endpoint, id: String, from: String, headers: [String: String]) {
        self.from = from
        extraHeaders = headers
        super.init(endpoint: endpoint, id: id, phase: .ringing)
    }

    /// The caller's user part (`alice` in `sip:alice@example.com`), or the URI.
    public var caller: String {
        guard let colon = from.firstIndex(of: ":") else { return from }
        let rest = from[from.index(after: colon)...]
        return String(rest.split(separator: "@").first ?? rest)
    }

    /// Answers (the seed's `answer`): 200 OK with our SDP answer, audio starts;
    /// ``EndpointDelegate/onIncomingCallAnswered(_:)`` follows.
    public func answer() { startAnswer() }

    private func startAnswer() {
        guard let id = callUUID else { return }
        endpoint.run { ua in
            guard let leg = ua.calls[id] else { return }
            do { try leg.answer() } catch {
                leg.end(.invalid(error as? EndpointError ?? EndpointError(code: 500, reason: "\(error)")))
            }
        }
    }

    /// ``answer()`` that returns once the call is answered.
    public func answer() async throws(EndpointError) {
        startAnswer()
        try await waitForAnswer()
    }

    /// Refuses the call (the seed's `reject`): 603 Decline; ``EndpointDelegate/onIncomingCallRejected(_:)`` follows.
    public func reject() {
        guard let id = callUUID else { return }
        endpoint.run { ua in try? ua.calls[id]?.reject() }
    }

    override func notify(_ delegate: any EndpointDelegate, of event: CallEvent) {
        switch event {
        case .answered: delegate.onIncomingCallAnswered(self)
        case .rejected: delegate.onIncomingCallRejected(self)
        case .invalid: delegate.onIncomingCallInvalid(self)
        case .hungUp: delegate.onIncomingCallHangup(self)
        case .digit, .incoming, .calling, .ringing: super.notify(delegate, of: event)
        }
    }
}
