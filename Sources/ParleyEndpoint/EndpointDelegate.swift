/// The seed's `PlivoEndpointDelegate`: what happens to the endpoint and its calls. Every method
/// has an empty default, so an app implements those it needs. Called on the endpoint's delegate
/// queue (`DelegateQueue.default` unless the endpoint was given another), in the order things happened.
public protocol EndpointDelegate: AnyObject, Sendable {
    /// The registrar accepted our REGISTER (the seed's `onLogin`).
    func onLogin()
    /// Login or a later refresh failed: `error.code` is the registrar's status (403 wrong
    /// password, 408 no answer, 503 transport) (the seed's `onLoginFailedWithError:`).
    func onLoginFailed(error: EndpointError)
    /// The binding was removed after ``Endpoint/logout()`` (the seed's `onLogout`).
    func onLogout()

    /// A call for us rings (the seed's `onIncomingCall:`); ``Incoming/answer()`` or ``Incoming/reject()`` it.
    func onIncomingCall(_ incoming: Incoming)
    /// We answered and the caller's ACK arrived, or the media started.
    func onIncomingCallAnswered(_ incoming: Incoming)
    /// The caller gave up before we answered (CANCEL), or we rejected (the seed's `onIncomingCallRejected:`).
    func onIncomingCallRejected(_ incoming: Incoming)
    /// An answered incoming call ended, by either side (the seed's `onIncomingCallHangup:`).
    func onIncomingCallHangup(_ incoming: Incoming)
    /// An incoming call failed: its offer had no audio we can take, or it ended in an error.
    func onIncomingCallInvalid(_ incoming: Incoming)
    /// A key the far end pressed on the current call (RFC 4733), once per press (the seed's `onIncomingDigit:`).
    func onIncomingDigit(_ digit: String)

    /// Our INVITE went out (the seed's `onCalling`).
    func onOutgoingCall(_ outgoing: Outgoing)
    /// The callee rings: 180, or 183 with early media (the seed's `onOutgoingCallRinging:`).
    func onOutgoingCallRinging(_ outgoing: Outgoing)
    /// The callee answered (2xx) (the seed's `onOutgoingCallAnswered:`).
    func onOutgoingCallAnswered(_ outgoing: Outgoing)
    /// The callee refused: busy, declined, no answer (the seed's `onOutgoingCallRejected:`).
    func onOutgoingCallRejected(_ outgoing: Outgoing, error: EndpointError)
    /// An answered outgoing call ended, by either side (the seed's `onOutgoingCallHangup:`).
    func onOutgoingCallHangup(_ outgoing: Outgoing)
    /// The destination does not exist or cannot be called: 404, 484, 400… (the seed's `onOutgoingCallInvalid:`).
    func onOutgoingCallInvalid(_ outgoing: Outgoing, error: EndpointError)
}

extension EndpointDelegate {
    public func onLogin() {}
    public func onLoginFailed(error: EndpointError) {}
    public func onLogout() {}
    public func onIncomingCall(_ incoming: Incoming) {}
    public func onIncomingCallAnswered(_ incoming: Incoming) {}
    public func onIncomingCallRejected(_ incoming: Incoming) {}
    public func onIncomingCallHangup(_ incoming: Incoming) {}
    public func onIncomingCallInvalid(_ incoming: Incoming) {}
    public func onIncomingDigit(_ digit: String) {}
    public func onOutgoingCall(_ outgoing: Outgoing) {}
    public func onOutgoingCallRinging(_ outgoing: Outgoing) {}
    public func onOutgoingCallAnswered(_ outgoing: Outgoing) {}
    public func onOutgoingCallRejected(_ outgoing: Outgoing, error: EndpointError) {}
    public func onOutgoingCallHangup(_ outgoing: Outgoing) {}
    public func onOutgoingCallInvalid(_ outgoing: Outgoing, error: EndpointError) {}
}
