import ParleyCore
import STUN

extension ICEAgent {
    /// Pairs a new remote candidate with every local candidate of its family (RFC 8445 §6.1.2.2).
    /// Only host and relayed local candidates pair: a server-reflexive one is pruned in favour of
    /// its base (§6.1.2.4).
    mutating func formPairs(remote: ICECandidate) {
        for local in localCandidates where local.type == .host || local.type == .relay {
            addPair(local: local, remote: remote)
        }
    }

    /// Pairs a new local candidate with every remote candidate.
    mutating func formPairs(local: ICECandidate) {
        guard local.type == .host || local.type == .relay else { return }
        for remote in remoteCandidates { addPair(local: local, remote: remote) }
    }

    /// Adds a pair unless present: Waiting if no pair of its foundation is already Waiting or In
    /// Progress, else Frozen (a one-component take on §6.1.2.6). Returns its index.
    @discardableResult
    mutating func addPair(local: ICECandidate, remote: ICECandidate) -> Int? {
        guard local.address.isSameFamily(as: remote.address) else { return nil }
        if let existing = pairIndex(local: local, remote: remote.address) { return existing }
        var pair = ICECandidatePair(local: local, remote: remote, role: role)
        let busy = pairs.contains { $0.foundation == pair.foundation && ($0.state == .waiting || $0.state == .inProgress) }
        pair.state = busy ? .frozen : .waiting
        pairs.append(pair)
        return pairs.count - 1
    }

    func pairIndex(local: ICECandidate, remote: ICETransportAddress) -> Int? {
        pairs.firstIndex { $0.local.address == local.address && $0.local.type == local.type && $0.remote.address == remote }
    }

    /// `.new` → `.checking` once there is something to check.
    mutating func startChecking() -> [ICEAgentAction] {
        state == .new && !pairs.isEmpty ? transition(to: .checking) : []
    }

    var hasCheckToSend: Bool {
        remoteCredentials != nil
            && (!triggeredQueue.isEmpty
                || (!checklistCompleted && pairs.contains { $0.state == .waiting || $0.state == .frozen }))
    }

    /// Sends at most one check per Ta (RFC 8445 §6.1.4.2): a triggered one first, else the
    /// highest-priority Waiting pair, else the highest-priority Frozen pair, unfrozen.
    mutating func scheduleChecks(now: ICEInstant) -> [ICEAgentAction] {
        guard hasCheckToSend, now >= (nextCheckAt ?? now) else { return [] }
        let index: Int
        if !triggeredQueue.isEmpty {
            index = triggeredQueue.removeFirst()
        } else if !checklistCompleted, let best = bestPair(in: .waiting) ?? bestPair(in: .frozen) {
            index = best
        } else {
            return []
        }
        nextCheckAt = now.advanced(by: configuration.checkInterval)
        return sendCheck(pair: index, useCandidate: index == nominatingPair, now: now)
    }

    func bestPair(in state: ICEPairState) -> Int? {
        pairs.indices.filter { pairs[$0].state == state }.max { pairs[$0].priority < pairs[$1].priority }
    }

    /// Sends a connectivity check on `pairs[pair]` (RFC 8445 §7.2.2). PRIORITY is that of a
    /// peer-reflexive candidate with the local candidate's local preference (§7.1.1).
    mutating func sendCheck(pair index: Int, useCandidate: Bool, now: ICEInstant) -> [ICEAgentAction] {
        guard pairs.indices.contains(index), let remoteCredentials else { return [] }
        let pair = pairs[index]
        let id = newTransactionID()
        let priority = ICECandidate.priority(type: .prflx, localPreference: UInt16(truncatingIfNeeded: pair.local.priority >> 8),
                                             component: pair.local.component)
        let bytes = ICEMessages.check(id: id, local: localCredentials, remote: remoteCredentials, priority: priority,
                                      role: role, tieBreaker: tieBreaker, useCandidate: useCandidate, hmac: hmac)
        let (setup, send) = route(bytes, from: pair.local, to: pair.remote.address, now: now)
        guard let send else {
            pairs[index].state = .failed  // its relay is gone
            return checkFailed(pair: index, now: now)
        }
        if pairs[index].state != .succeeded { pairs[index].state = .inProgress }
        // RFC 8445 §14.3: RTO = MAX(500 ms, Ta * (Num-Waiting + Num-In-Progress)).
        let active = pairs.filter { $0.state == .waiting || $0.state == .inProgress }.count
        let rto = max(configuration.minimumRTO, configuration.checkInterval * active)
        stats.checksSent += 1
        return setup + [start(.check(pair: index, useCandidate: useCandidate, role: role), id: id, send: send,
                              rto: rto, now: now)]
    }

    /// Puts a pair at the back of the triggered-check queue (RFC 8445 §7.3.1.4).
    mutating func trigger(_ index: Int) {
        if pairs[index].state == .failed || pairs[index].state == .frozen { pairs[index].state = .waiting }
        if !triggeredQueue.contains(index) { triggeredQueue.append(index) }
    }

    /// A check succeeded: the pair is valid (RFC 8445 §7.2.5.3.2); its foundation unfreezes
    /// (§7.2.5.3.3); a nominated pair is selected; otherwise the controlling agent plans its
    /// nomination.
    mutating func checkSucceeded(pair index: Int, useCandidate: Bool, now: ICEInstant) -> [ICEAgentAction] {
        pairs[index].state = .succeeded
        let foundation = pairs[index].foundation
        for i in pairs.indices where pairs[i].state == .frozen && pairs[i].foundation == foundation {
            pairs[i].state = .waiting
        }
        if (useCandidate && role == .controlling) || (pairs[index].nominateOnSuccess && role == .controlled) {
            return select(pair: index, now: now)
        }
        if role == .controlling, nominatingPair == nil, nominationDueAt == nil, !pairs.contains(where: \.nominated) {
            nominationDueAt = now.advanced(by: configuration.nominationDelay)
        }
        return []
    }

    /// A check failed or timed out.
    mutating func checkFailed(pair index: Int, now: ICEInstant) -> [ICEAgentAction] {
        guard pairs.indices.contains(index) else { return [] }
        if pairs[index].state != .succeeded || index == nominatingPair { pairs[index].state = .failed }
        if index == nominatingPair {
            nominatingPair = nil
            nominationDueAt = now  // try the next best valid pair
        }
        return updateFailure()
    }

    /// Regular nomination (RFC 8445 §8.1.1): once `nominationDelay` has passed since the first
    /// valid pair, or every check is over, re-check the best valid pair with USE-CANDIDATE.
    mutating func nominateIfDue(now: ICEInstant) -> [ICEAgentAction] {
        guard role == .controlling, nominatingPair == nil, let due = nominationDueAt else { return [] }
        let checking = pairs.contains { $0.state == .waiting || $0.state == .inProgress || $0.state == .frozen }
        guard now >= due || !checking else { return [] }
        nominationDueAt = nil
        guard let best = bestPair(in: .succeeded) else { return updateFailure() }
        nominatingPair = best
        triggeredQueue.removeAll { $0 == best }
        // The nominating check re-checks a pair already known to work, so it goes out at once
        // rather than waiting for the next Ta slot (RFC 8445 §14.2 paces new checks; waiting here
        // only delays connection by up to Ta). Later checks keep the pacing.
        nextCheckAt = now.advanced(by: configuration.checkInterval)
        return sendCheck(pair: best, useCandidate: true, now: now)
    }

    /// Every pair failed, no more candidates will come on either side, and nothing is selected:
    /// ICE has failed (RFC 8445 §7.2.5.3.5 / §8.1.2).
    mutating func updateFailure() -> [ICEAgentAction] {
        guard state == .new || state == .checking, selectedPair == nil, remoteCandidatesComplete,
              isGatheringComplete, nominatingPair == nil,
              pairs.allSatisfy({ $0.state == .failed }) else { return [] }
        failure = ParleyError(.mediaConnection, reason: "ICE failed: all \(pairs.count) candidate pairs failed")
        return transition(to: .failed)
    }

    /// Switches role after a conflict and recomputes pair priorities (RFC 8445 §7.2.5.1, §7.3.1.1).
    mutating func switchRole(to new: ICERole, now: ICEInstant) -> [ICEAgentAction] {
        guard new != role else { return [] }
        role = new
        stats.roleConflicts += 1
        for i in pairs.indices {
            pairs[i].priority = ICECandidatePair.priority(local: pairs[i].local, remote: pairs[i].remote, role: role)
        }
        nominatingPair = nil
        nominationDueAt = nil
        if role == .controlling, pairs.contains(where: { $0.state == .succeeded }), !pairs.contains(where: \.nominated) {
            nominationDueAt = now.advanced(by: configuration.nominationDelay)
        }
        return [.roleChanged(new)]
    }
}
