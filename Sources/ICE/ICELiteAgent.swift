import ParleyCore
import STUN

/// The server side of ICE as a lite implementation (RFC 8445 §2.5): it gathers only host
/// candidates (the owner signals them with `a=ice-lite`), never sends checks, answers the peer's
/// checks, and takes the pair the peer nominates. Always in the controlled role (§6.1.1).
///
/// A value type with no I/O: feed it STUN datagrams with `receive(_:from:now:)`, call
/// `tick(now:)` at `nextDeadline`, and carry out the returned `ICEAction`s.
///
/// Consent freshness (RFC 7675): once a pair is selected, the peer's checks on it refresh
/// consent. Without a valid check for `consentTimeout` (30 s) the state becomes `.failed`; with
/// no check and no traffic reported through `noteTraffic(from:now:)` for `disconnectedTimeout`
/// (5 s) it becomes `.disconnected`, and back to `.connected` when something arrives.
public struct ICELiteAgent: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Silence on the selected pair before `.disconnected`.
        public var disconnectedTimeout: Duration
        /// Time without a valid check on the selected pair before `.failed` (RFC 7675 §5.1: 30 s).
        public var consentTimeout: Duration
        /// How many peer addresses (learned from valid checks) are remembered.
        public var maxPeerAddresses: Int

        public init(disconnectedTimeout: Duration = .seconds(5), consentTimeout: Duration = .seconds(30),
                    maxPeerAddresses: Int = 16) {
            self.disconnectedTimeout = disconnectedTimeout
            self.consentTimeout = consentTimeout
            self.maxPeerAddresses = maxPeerAddresses
        }
    }

    /// Counters for monitoring; every received datagram lands in exactly one of the first six.
    public struct Statistics: Sendable, Hashable {
        /// Binding requests that authenticated (answered with success or 487).
        public var requests = 0
        /// Not STUN, unparsable, or a wrong or missing FINGERPRINT: dropped silently.
        public var malformed = 0
        /// Missing credentials (400), unknown USERNAME or bad MESSAGE-INTEGRITY (401).
        public var unauthenticated = 0
        /// Unknown comprehension-required attributes (420).
        public var unknownAttributes = 0
        /// Binding indications (keepalives, RFC 8445 §11).
        public var indications = 0
        /// Well-formed STUN that is not for a lite agent (responses, other methods), or anything
        /// received after `close()`.
        public var ignored = 0
        /// Of `requests`: answered 487 because the peer also claimed the controlled role.
        public var roleConflicts = 0
        /// Of `requests`: carried USE-CANDIDATE.
        public var nominations = 0
    }

    public internal(set) var localCredentials: ICECredentials
    /// The peer's credentials once signalled; until then any remote ufrag is accepted.
    public internal(set) var remoteCredentials: ICECredentials?
    public internal(set) var state: ICEConnectionState = .new
    /// Where media goes: the address of the nominated pair.
    public internal(set) var selectedAddress: ICETransportAddress?
    /// Peer addresses that sent a valid check (RFC 8445 §7.3.1.3), with when they last did.
    public internal(set) var peerAddresses: [ICETransportAddress: ICEInstant] = [:]
    public internal(set) var stats = Statistics()
    public var configuration: Configuration
    /// Why the state became `.failed`, as a `ParleyError` with code `.mediaConnection` (53405).
    public internal(set) var failure: ParleyError?

    let hmac: HMACFunction
    /// The credentials before the last ICE restart, honoured until a check with the new ones
    /// authenticates, so consent on the old pair keeps flowing meanwhile (RFC 8445 §9).
    var previousGeneration: CredentialGeneration?
    /// Our ufrag of the older credentials still honoured after a restart (see `restart`), if any.
    public var previousLocalUfrag: String? { previousGeneration?.local.ufrag }
    var lastConsent: ICEInstant?
    var lastActivity: ICEInstant?
    var nominatedInCurrentGeneration = false

    /// - Parameters:
    ///   - localCredentials: ours, as put in the SDP (`ICECredentials.random(using:)`).
    ///   - remoteCredentials: the peer's, if already known; see `setRemoteCredentials(_:)`.
    ///   - hmac: HMAC-SHA1, e.g. `{ HMAC.sha1(key: $0, message: $1) }` from ParleyCrypto.
    public init(localCredentials: ICECredentials, remoteCredentials: ICECredentials? = nil,
                configuration: Configuration = Configuration(), hmac: @escaping HMACFunction) {
        self.localCredentials = localCredentials
        self.remoteCredentials = remoteCredentials
        self.configuration = configuration
        self.hmac = hmac
    }

    /// Records the peer's credentials when its description arrives after the agent was made.
    public mutating func setRemoteCredentials(_ credentials: ICECredentials) {
        remoteCredentials = credentials
    }

    /// When the owner must next call `tick(now:)`; nil when no timer is needed.
    public var nextDeadline: ICEInstant? {
        guard let lastConsent else { return nil }
        let failAt = lastConsent.advanced(by: configuration.consentTimeout)
        switch state {
        case .connected, .completed:
            return earliest(failAt, (lastActivity ?? lastConsent).advanced(by: configuration.disconnectedTimeout))
        case .disconnected:
            return failAt
        default:
            return nil
        }
    }

    /// Handles a STUN datagram from `source`; see `receive(_:from:now:)` for arrays.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, from source: ICETransportAddress,
                                 now: ICEInstant) -> [ICEAction] {
        guard state != .closed else {
            stats.ignored += 1
            return []
        }
        var generations = [CredentialGeneration(local: localCredentials, remoteUfrag: remoteCredentials?.ufrag)]
        if let previousGeneration { generations.append(previousGeneration) }
        switch ICEMessages.classify(bytes, accepting: generations, hmac: hmac) {
        case .malformed:
            stats.malformed += 1
            return []
        case .other(let message):
            guard message.type == .bindingIndication else {
                stats.ignored += 1
                return []
            }
            stats.indications += 1
            return noteTraffic(from: source, now: now)
        case .reject(let request, let error, let unknown, let credentials):
            if error == .unknownAttribute { stats.unknownAttributes += 1 } else { stats.unauthenticated += 1 }
            let bytes = ICEMessages.bindingError(to: request, error: error, unknown: unknown,
                                                 password: credentials?.pwd, hmac: hmac)
            return [.send(bytes, to: source)]
        case .authenticated(let request, let credentials):
            return handleCheck(request, credentials: credentials, from: source, now: now)
        }
    }

    /// Handles a STUN datagram from `source`.
    public mutating func receive(_ bytes: [UInt8], from source: ICETransportAddress, now: ICEInstant) -> [ICEAction] {
        bytes.withUnsafeBytes { receive($0, from: source, now: now) }
    }

    /// Tells the agent that authenticated traffic (DTLS, SRTP) arrived from `source`: it keeps
    /// the selected pair out of `.disconnected`, but only checks refresh consent (RFC 7675 §1).
    public mutating func noteTraffic(from source: ICETransportAddress, now: ICEInstant) -> [ICEAction] {
        guard source == selectedAddress, state.hasSelectedPair else { return [] }
        lastActivity = now
        return state == .disconnected ? transition(to: .connected) : []
    }

    /// Applies the timers: `.disconnected` after silence, `.failed` once consent expires.
    public mutating func tick(now: ICEInstant) -> [ICEAction] {
        guard state.hasSelectedPair, let lastConsent else { return [] }
        if now >= lastConsent.advanced(by: configuration.consentTimeout) {
            failure = ParleyError(.mediaConnection, reason: "ICE consent expired (RFC 7675): no check from \(selectedAddress.map { "\($0)" } ?? "peer") for \(configuration.consentTimeout)")
            return transition(to: .failed)
        }
        let last = max(lastActivity ?? lastConsent, lastConsent)
        if state != .disconnected, now >= last.advanced(by: configuration.disconnectedTimeout) {
            return transition(to: .disconnected)
        }
        return []
    }

    /// ICE restart (RFC 8445 §9): new credentials on both sides. A selected pair stays in use,
    /// and checks under the credentials it was selected with are still answered, until the peer
    /// nominates again under the new ones (so across restarts that found no path, as during an
    /// outage, the peer's consent checks on the old pair keep working); a failed agent starts
    /// over from `.new`.
    public mutating func restart(localCredentials: ICECredentials, remoteCredentials: ICECredentials?) -> [ICEAction] {
        guard state != .closed else { return [] }
        if previousGeneration == nil || nominatedInCurrentGeneration {
            previousGeneration = CredentialGeneration(local: self.localCredentials, remoteUfrag: self.remoteCredentials?.ufrag)
        }
        self.localCredentials = localCredentials
        self.remoteCredentials = remoteCredentials
        nominatedInCurrentGeneration = false
        guard state == .failed else { return [] }
        previousGeneration = nil
        selectedAddress = nil
        lastConsent = nil
        lastActivity = nil
        failure = nil
        peerAddresses = [:]
        return transition(to: .new)
    }

    /// Stops the agent: `.closed`, and everything received afterwards is ignored.
    public mutating func close() -> [ICEAction] {
        guard state != .closed else { return [] }
        return transition(to: .closed)
    }
}
