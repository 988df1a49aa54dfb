/// What an `ICEAgent` asks its owner to do, in order.
public enum ICEAgentAction: Sendable, Hashable {
    /// Send `bytes` from the local socket bound to `from` (a host address the owner supplied) to
    /// `to`. Traffic through a TURN relay is already wrapped and addressed to the TURN server.
    case send([UInt8], from: ICETransportAddress, to: ICETransportAddress)
    /// A local candidate to signal to the peer (trickle ICE).
    case candidateGathered(ICECandidate)
    /// Gathering is over: signal end-of-candidates.
    case gatheringComplete
    /// The connection state changed.
    case stateChanged(ICEConnectionState)
    /// A role conflict changed our role (RFC 8445 §7.2.5.1, §7.3.1.1).
    case roleChanged(ICERole)
    /// The pair media now uses (RFC 8445 §8.1.1): send with `wrapOutgoing(_:)`.
    case selectedPair(local: ICECandidate, remote: ICECandidate)
    /// Application data (DTLS, SRTP) that arrived through a TURN relay from `from`, the peer.
    case deliver([UInt8], from: ICETransportAddress)
}

/// A TURN server and the long-term credentials to use with it (RFC 8656 §5; for coturn's REST
/// API see `TURNRESTCredentials`).
public struct TURNServer: Sendable, Hashable {
    public var address: ICETransportAddress
    public var username: String
    public var password: String

    public init(address: ICETransportAddress, username: String, password: String) {
        self.address = address
        self.username = username
        self.password = password
    }
}

/// The state of one candidate pair on the checklist (RFC 8445 §6.1.2.6).
public enum ICEPairState: String, Sendable, Hashable {
    case frozen
    case waiting
    case inProgress
    case succeeded
    case failed
}

/// A local and a remote candidate on the checklist (RFC 8445 §6.1.2).
public struct ICECandidatePair: Sendable, Hashable {
    public var local: ICECandidate
    public var remote: ICECandidate
    public internal(set) var state: ICEPairState = .frozen
    /// The pair priority for the current role (RFC 8445 §6.1.2.3).
    public internal(set) var priority: UInt64 = 0
    /// The controlling agent nominated this pair and its check succeeded.
    public internal(set) var nominated = false
    /// Controlled side: USE-CANDIDATE arrived before the pair was valid; nominate on success
    /// (RFC 8445 §7.3.1.5).
    var nominateOnSuccess = false

    init(local: ICECandidate, remote: ICECandidate, role: ICERole) {
        self.local = local
        self.remote = remote
        priority = Self.priority(local: local, remote: remote, role: role)
    }

    /// RFC 8445 §6.1.2.3, with G the controlling agent's candidate priority and D the
    /// controlled agent's:
    ///
    ///     pair priority = 2^32*MIN(G,D) + 2*MAX(G,D) + (G>D?1:0)
    public static func priority(local: ICECandidate, remote: ICECandidate, role: ICERole) -> UInt64 {
        let g = UInt64(role == .controlling ? local.priority : remote.priority)
        let d = UInt64(role == .controlling ? remote.priority : local.priority)
        return (min(g, d) << 32) + 2 * max(g, d) + (g > d ? 1 : 0)
    }

    /// The pair foundation: local and remote foundations joined (§6.1.2.6).
    public var foundation: String { local.foundation + ":" + remote.foundation }
}
