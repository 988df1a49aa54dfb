/// The agent's role in the ICE session (RFC 8445 §6.1.1): the controlling agent nominates the
/// pair, the controlled agent follows. A lite agent is always controlled.
public enum ICERole: String, Sendable, Hashable, CaseIterable {
    case controlling
    case controlled

    /// The other role.
    public var opposite: ICERole { self == .controlling ? .controlled : .controlling }
}

/// The connection state reported to the owner, with the W3C `RTCIceConnectionState` names.
public enum ICEConnectionState: String, Sendable, Hashable, CaseIterable {
    /// No check has been sent or received yet.
    case new
    /// Checks are under way and no pair has been selected.
    case checking
    /// A pair is selected and consent is fresh (RFC 7675).
    case connected
    /// A pair is selected, checking is over and no more candidates are expected.
    case completed
    /// Nothing valid has arrived on the selected pair for a while; consent has not yet expired.
    case disconnected
    /// Every pair failed, or consent expired (RFC 7675 §5.1). Terminal until an ICE restart.
    case failed
    /// `close()` was called. Terminal.
    case closed

    /// True while a selected pair may carry media: connected, completed or disconnected.
    public var hasSelectedPair: Bool {
        self == .connected || self == .completed || self == .disconnected
    }
}

/// Which local candidates the full agent may use (W3C `RTCIceTransportPolicy`).
public enum ICETransportPolicy: String, Sendable, Hashable {
    /// Host, server-reflexive and relayed candidates.
    case all
    /// Relayed candidates only: host and server-reflexive ones are neither signalled nor paired.
    case relay
}
