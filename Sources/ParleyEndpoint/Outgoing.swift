import Synchronization

/// An outgoing call (the seed's `PlivoOutgoing`), from ``Endpoint/createOutgoingCall()``.
public final class Outgoing: EndpointCall, @unchecked Sendable {
    init(endpoint: Endpoint) {
        super.init(endpoint: endpoint, id: nil, phase: .idle)
    }

    /// Places the call (the seed's `call:headers:error:`): an INVITE with our offer (Opus, PCMU,
    /// PCMA, telephone-event; SDES keys unless turned off) and `headers` to `destination`, a SIP
    /// URI, `user@host`, a number or an identity at the registrar's domain. What follows reaches
    /// the delegate: ``EndpointDelegate/onOutgoingCall(_:)``, `…Ringing`, `…Answered`,
    /// `…Rejected`, `…Invalid`, `…Hangup`.
    /// - Throws: ``EndpointError/invalidArgument`` for a destination or header that cannot be
    ///   sent (see ``ExtraHeaders``), ``EndpointError/invalidState`` when this call was placed already.
    public func call(_ destination: String, headers: [String: String] = [:]) throws(EndpointError) {
        try place(destination, headers: headers)
    }

    private func place(_ destination: String, headers: [String: String]) throws(EndpointError) {
        let checked = try ExtraHeaders.validated(headers)
        let settings = try UserAgentSettings(endpoint.options)
        let target = try Destination.uri(destination, domain: settings.registrarURI)
        let placed = callState.withLock { s -> Bool in
            guard s.phase == .idle else { return false }
            s.phase = .calling
            return true
        }
        guard placed else { throw EndpointError(code: EndpointError.invalidState, reason: "this call was placed already") }
        let endpoint = self.endpoint
        endpoint.run { [self] ua in
            do {
                guard ua.calls.count < UserAgent.maximumCalls else {
                    throw EndpointError(code: 486, reason: "too many calls at once (\(UserAgent.maximumCalls))")
                }
                let leg = try CallLeg(outgoing: target, headers: checked, ua: ua)
                callState.withLock { $0.id = leg.callID }
                endpoint.register(self, id: leg.callID)
                ua.calls[leg.callID] = leg
                try leg.start()
            } catch {
                let failure = error as? EndpointError ?? EndpointError(code: 500, reason: "\(error)")
                if let id = callUUID, let leg = ua.calls[id] {
                    leg.end(.invalid(failure))
                } else {
                    let resume = update(.invalid(failure))
                    endpoint.notify { [self] in $0.onOutgoingCallInvalid(self, error: failure) }
                    resume()
                }
            }
        }
    }

    /// ``call(_:headers:)`` that returns once the callee answered.
    /// - Throws: why it was not answered: the far end's status (486 busy, 603 declined, 404 …)
    ///   or an invalid argument.
    public func call(_ destination: String, headers: [String: String] = [:]) async throws(EndpointError) {
        try place(destination, headers: headers)
        try await waitForAnswer()
    }

    override func notify(_ delegate: any EndpointDelegate, of event: CallEvent) {
        switch event {
        case .calling: delegate.onOutgoingCall(self)
        case .ringing: delegate.onOutgoingCallRinging(self)
        case .answered: delegate.onOutgoingCallAnswered(self)
        case .rejected(let error): delegate.onOutgoingCallRejected(self, error: error)
        case .invalid(let error): delegate.onOutgoingCallInvalid(self, error: error)
        case .hungUp: delegate.onOutgoingCallHangup(self)
        case .digit, .incoming: super.notify(delegate, of: event)
        }
    }
}
