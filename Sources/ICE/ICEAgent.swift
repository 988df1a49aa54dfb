import ParleyCore
import STUN

/// A full ICE agent (RFC 8445), the client side: it gathers host, server-reflexive (STUN) and
/// relayed (TURN, RFC 8656) candidates, pairs them with the peer's trickled candidates, runs
/// paced and retransmitted connectivity checks, nominates the best valid pair when controlling
/// (regular nomination, §8.1.1), resolves role conflicts, and then keeps consent fresh
/// (RFC 7675).
///
/// A value type with no I/O, sockets or clocks: the owner supplies local addresses, feeds every
/// datagram to `receive(_:from:at:now:)`, calls `tick(now:)` at `nextDeadline`, and carries out
/// the returned `ICEAgentAction`s. One component (RTP/RTCP mux with BUNDLE), UDP only.
public struct ICEAgent: Sendable {
    public struct Configuration: Sendable {
        /// The initial role: the offerer of a full-full session, or the full side facing a lite
        /// peer, is controlling (RFC 8445 §6.1.1).
        public var role: ICERole = .controlling
        public var policy: ICETransportPolicy = .all
        public var stunServers: [ICETransportAddress] = []
        public var turnServers: [TURNServer] = []
        /// Ta, the pacing of new checks (RFC 8445 §14.2).
        public var checkInterval: Duration = .milliseconds(50)
        /// The smallest initial retransmission timeout (RFC 8445 §14.3: 500 ms).
        public var minimumRTO: Duration = .milliseconds(500)
        /// The retransmission timeout doubles up to this.
        public var maximumRTO: Duration = .seconds(3)
        /// Transmissions of one request before it times out (Rc, RFC 8489 §6.2.1: 7).
        public var maxTransmissions = 7
        /// After the first valid pair, how long checks may go on before the best valid pair is
        /// nominated (sooner if every check has finished).
        public var nominationDelay: Duration = .milliseconds(200)
        /// Consent checks every this long, randomized by 0.8–1.2 (RFC 7675 §5.1: 5 s).
        public var consentInterval: Duration = .seconds(5)
        /// No consent response for this long: `.failed` (RFC 7675 §5.1: 30 s).
        public var consentTimeout: Duration = .seconds(30)
        /// Nothing received on the selected pair for this long: `.disconnected`.
        public var disconnectedTimeout: Duration = .seconds(8)
        /// The TURN allocation lifetime asked for, in seconds (RFC 8656 §7.2: default 600).
        public var turnLifetime: UInt32 = 600

        public init() {}
    }

    public internal(set) var configuration: Configuration
    public internal(set) var localCredentials: ICECredentials
    public internal(set) var remoteCredentials: ICECredentials?
    public internal(set) var role: ICERole
    /// Compared with the peer's on a role conflict (RFC 8445 §7.3.1.1).
    public internal(set) var tieBreaker: UInt64
    public internal(set) var state: ICEConnectionState = .new
    /// Candidates gathered so far, including those the policy keeps from the peer.
    public internal(set) var localCandidates: [ICECandidate] = []
    public internal(set) var remoteCandidates: [ICECandidate] = []
    /// The checklist (RFC 8445 §6.1.2), in the order pairs were formed.
    public internal(set) var pairs: [ICECandidatePair] = []
    /// The pair media uses, if any (it survives an ICE restart until a new one is selected).
    public internal(set) var selectedPair: ICECandidatePair?
    public internal(set) var isGatheringComplete = false
    public internal(set) var remoteCandidatesComplete = false
    /// Why the state became `.failed`, with code `.mediaConnection` (53405).
    public internal(set) var failure: ParleyError?
    public internal(set) var stats = Statistics()

    /// Counters for monitoring.
    public struct Statistics: Sendable, Hashable {
        /// Unparsable STUN, or a wrong or missing FINGERPRINT: dropped.
        public var malformed = 0
        /// Checks answered 400, 401 or 420.
        public var rejected = 0
        /// Checks received that authenticated.
        public var checksReceived = 0
        /// Checks sent, first transmissions only.
        public var checksSent = 0
        /// Retransmissions of any request.
        public var retransmissions = 0
        /// Role conflicts seen, in either direction.
        public var roleConflicts = 0
        /// Responses matching no transaction, or failing their integrity check.
        public var unmatchedResponses = 0
    }

    let hmac: HMACFunction
    let md5: MD5Function?
    var random: any RandomNumberGenerator & Sendable
    /// Host candidates for every local address, even those the policy keeps from the peer.
    var hostCandidates: [ICECandidate] = []
    var transactions: [STUNTransactionID: Transaction] = [:]
    var triggeredQueue: [Int] = []
    var nextCheckAt: ICEInstant?
    var nominationDueAt: ICEInstant?
    var nominatingPair: Int?
    /// A pair is selected: ordinary checks stop (RFC 8445 §8.1.2); triggered ones still run.
    var checklistCompleted = false
    var pendingGathering = 0
    var allocations: [TURNAllocation] = []
    var consent = ConsentState()

    /// - Parameters:
    ///   - localCredentials: ours; nil draws fresh ones from `random`.
    ///   - random: transaction IDs, tie-breaker and consent jitter; use a secure generator such
    ///     as `SystemRandomNumberGenerator` in production.
    ///   - hmac: HMAC-SHA1 (checks and TURN integrity).
    ///   - md5: MD5 for the TURN long-term key (RFC 8489 §9.2.2); required with TURN servers.
    public init(configuration: Configuration = Configuration(), localCredentials: ICECredentials? = nil,
                remoteCredentials: ICECredentials? = nil, tieBreaker: UInt64? = nil,
                random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
                hmac: @escaping HMACFunction, md5: MD5Function? = nil) {
        var random = random
        self.configuration = configuration
        self.localCredentials = localCredentials ?? .random(using: &random)
        self.remoteCredentials = remoteCredentials
        self.role = configuration.role
        self.tieBreaker = tieBreaker ?? random.next()
        self.random = random
        self.hmac = hmac
        self.md5 = md5
    }

    /// When the owner must next call `tick(now:)`; nil when nothing is scheduled.
    public var nextDeadline: ICEInstant? {
        guard state != .closed else { return nil }
        let checks = hasCheckToSend ? (nextCheckAt ?? .zero) : nil
        return earliest(checks, transactions.values.map(\.nextAt).min(), nominationDueAt,
                        consentDeadline, allocations.compactMap(\.nextDeadline).min())
    }

    /// Records the peer's credentials (from its offer or answer); pairs waiting for them start.
    public mutating func setRemoteCredentials(_ credentials: ICECredentials) {
        remoteCredentials = credentials
    }

    /// Adds a trickled remote candidate (RFC 8838) and pairs it with the local ones. Candidates
    /// of other components or TCP ones are ignored; a candidate known as peer-reflexive is
    /// upgraded in place.
    public mutating func addRemoteCandidate(_ candidate: ICECandidate, now: ICEInstant) -> [ICEAgentAction] {
        guard state != .closed, candidate.component == 1, candidate.transport == .udp else { return [] }
        if let i = remoteCandidates.firstIndex(where: { $0.address == candidate.address }) {
            if remoteCandidates[i].type == .prflx { remoteCandidates[i] = candidate }
            return []
        }
        remoteCandidates.append(candidate)
        formPairs(remote: candidate)
        var actions = startChecking()
        actions += tick(now: now)
        return actions
    }

    /// The peer signalled end-of-candidates: once every pair has failed, ICE fails.
    public mutating func endOfRemoteCandidates(now: ICEInstant) -> [ICEAgentAction] {
        remoteCandidatesComplete = true
        return updateFailure()
    }

    /// Handles a datagram that arrived at the local socket `local` from `source`: connectivity
    /// checks and their responses, STUN and TURN server responses, and TURN Data indications
    /// and ChannelData (whose application payload comes back as `.deliver`).
    public mutating func receive(_ bytes: [UInt8], from source: ICETransportAddress, at local: ICETransportAddress,
                                 now: ICEInstant) -> [ICEAgentAction] {
        guard state != .closed else { return [] }
        if let index = allocations.firstIndex(where: { $0.server.address == source && $0.base == local }) {
            return receiveFromTURN(bytes, allocation: index, now: now)
        }
        guard let candidate = localCandidate(at: local, type: .host) else { return [] }
        return receiveSTUN(bytes, from: source, local: candidate, now: now)
    }

    /// Runs the timers: paced checks, retransmissions, nomination, consent, TURN refreshes.
    public mutating func tick(now: ICEInstant) -> [ICEAgentAction] {
        guard state != .closed else { return [] }
        var actions = retransmit(now: now)
        actions += scheduleChecks(now: now)
        actions += nominateIfDue(now: now)
        actions += consentTick(now: now)
        actions += turnTick(now: now)
        return actions
    }

    /// ICE restart (RFC 8445 §9): new local credentials (nil draws fresh ones), the peer's new
    /// ones if known. Remote candidates and the checklist start over; local candidates and TURN
    /// allocations are kept, and media stays on the selected pair until a new one is selected.
    public mutating func restart(localCredentials: ICECredentials? = nil, remoteCredentials: ICECredentials?,
                                 now: ICEInstant) -> [ICEAgentAction] {
        guard state != .closed else { return [] }
        self.localCredentials = localCredentials ?? .random(using: &random)
        self.remoteCredentials = remoteCredentials
        transactions = transactions.filter { !$0.value.purpose.isCheck }
        remoteCandidates = []
        pairs = []
        triggeredQueue = []
        nominatingPair = nil
        nominationDueAt = nil
        checklistCompleted = false
        remoteCandidatesComplete = false
        failure = nil
        if state == .failed || selectedPair == nil {
            selectedPair = nil
            consent = ConsentState()
            return transition(to: hostCandidates.isEmpty ? .new : .checking)
        }
        return []
    }

    /// Stops the agent: TURN allocations are released (a Refresh with LIFETIME 0, RFC 8656 §7)
    /// and the state becomes `.closed`.
    public mutating func close(now: ICEInstant) -> [ICEAgentAction] {
        guard state != .closed else { return [] }
        var actions = releaseAllocations(now: now)
        transactions = [:]
        actions += transition(to: .closed)
        return actions
    }

    mutating func transition(to new: ICEConnectionState) -> [ICEAgentAction] {
        guard new != state else { return [] }
        state = new
        return [.stateChanged(new)]
    }

    /// The local candidate of `type` whose address is `address`; host candidates are found
    /// even when the policy keeps them from the peer.
    func localCandidate(at address: ICETransportAddress, type: ICECandidateType) -> ICECandidate? {
        if type == .host { return hostCandidates.first { $0.address == address } }
        return localCandidates.first { $0.address == address && $0.type == type }
    }
}
