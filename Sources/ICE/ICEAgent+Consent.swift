import ParleyCore
import STUN

/// Consent freshness on the selected pair (RFC 7675).
struct ConsentState: Sendable {
    /// The last consent (or check) response on the selected pair.
    var lastResponse: ICEInstant?
    /// The last valid datagram of any kind from the selected remote.
    var lastReceived: ICEInstant?
    var nextCheckAt: ICEInstant?
    /// The credentials in force when the pair was selected: consent keeps using them across an
    /// ICE restart until a new pair is selected.
    var localCredentials: ICECredentials?
    var remoteCredentials: ICECredentials?
}

extension ICEAgent {
    /// Selects `pairs[index]` (RFC 8445 §8.1.1, §7.3.1.5): media moves there, consent starts,
    /// and a relayed pair gets a TURN channel (RFC 8656 §12).
    mutating func select(pair index: Int, now: ICEInstant) -> [ICEAgentAction] {
        pairs[index].nominated = true
        pairs[index].nominateOnSuccess = false
        if index == nominatingPair { nominatingPair = nil }
        nominationDueAt = nil
        checklistCompleted = true
        let pair = pairs[index]
        selectedPair = pair
        consent = ConsentState(lastResponse: now, lastReceived: now, nextCheckAt: now.advanced(by: consentInterval()),
                               localCredentials: localCredentials, remoteCredentials: remoteCredentials)
        var actions: [ICEAgentAction] = [.selectedPair(local: pair.local, remote: pair.remote)]
        failure = nil
        actions += transition(to: .connected)
        if pair.local.type == .relay { actions += bindChannel(relay: pair.local.address, peer: pair.remote.address, now: now) }
        return actions
    }

    /// `consentInterval` scaled by a random 0.8–1.2 (RFC 7675 §5.1).
    mutating func consentInterval() -> Duration {
        configuration.consentInterval * Int(800 + random.next() % 401) / 1000
    }

    var consentDeadline: ICEInstant? {
        guard selectedPair != nil, state.hasSelectedPair, let lastResponse = consent.lastResponse else { return nil }
        let disconnectAt = state == .disconnected ? nil
            : consent.lastReceived.map { $0.advanced(by: configuration.disconnectedTimeout) }
        return earliest(consent.nextCheckAt, lastResponse.advanced(by: configuration.consentTimeout), disconnectAt)
    }

    /// Sends due consent checks; `.disconnected` after silence, `.failed` once consent expires
    /// (RFC 7675 §5.1: 30 s without a response).
    mutating func consentTick(now: ICEInstant) -> [ICEAgentAction] {
        guard let pair = selectedPair, state.hasSelectedPair, let lastResponse = consent.lastResponse else { return [] }
        if now >= lastResponse.advanced(by: configuration.consentTimeout) {
            failure = ParleyError(.mediaConnection,
                                  reason: "ICE consent expired (RFC 7675): no response from \(pair.remote.address) for \(configuration.consentTimeout)")
            transactions = transactions.filter { if case .consent = $0.value.purpose { false } else { true } }
            return transition(to: .failed)
        }
        var actions: [ICEAgentAction] = []
        if state != .disconnected, let last = consent.lastReceived, now >= last.advanced(by: configuration.disconnectedTimeout) {
            actions += transition(to: .disconnected)
        }
        if let next = consent.nextCheckAt, now >= next,
           let local = consent.localCredentials, let remote = consent.remoteCredentials {
            consent.nextCheckAt = now.advanced(by: consentInterval())
            let id = newTransactionID()
            let priority = ICECandidate.priority(type: .prflx, localPreference: UInt16(truncatingIfNeeded: pair.local.priority >> 8))
            let bytes = ICEMessages.check(id: id, local: local, remote: remote, priority: priority, role: role,
                                          tieBreaker: tieBreaker, useCandidate: false, hmac: hmac)
            let (setup, send) = route(bytes, from: pair.local, to: pair.remote.address, now: now)
            actions += setup
            if let send { actions.append(start(.consent, id: id, send: send, rto: configuration.minimumRTO, now: now)) }
        }
        return actions
    }

    mutating func consentResponse(from source: ICETransportAddress, now: ICEInstant) -> [ICEAgentAction] {
        guard selectedPair?.remote.address == source else { return [] }
        consent.lastResponse = now
        return noteTraffic(from: source, now: now)
    }

    /// Tells the agent that authenticated traffic (DTLS, SRTP) arrived from `source`: it keeps
    /// the selected pair out of `.disconnected`, but only consent responses refresh consent.
    /// Traffic coming back after a silence brings the next consent check forward to now: after
    /// a long outage consent may be close to expiring (RFC 7675 §5.1), and one round trip
    /// renews it rather than the next interval.
    public mutating func noteTraffic(from source: ICETransportAddress, now: ICEInstant) -> [ICEAgentAction] {
        guard selectedPair?.remote.address == source, state.hasSelectedPair else { return [] }
        consent.lastReceived = now
        guard state == .disconnected else { return [] }
        consent.nextCheckAt = now
        return transition(to: .connected)
    }

    /// Wraps application data (DTLS, SRTP) for the selected pair: the datagram, the local socket
    /// to send it from and where to send it. Through a relay the data goes in ChannelData once a
    /// channel is bound, a Send indication before (RFC 8656 §11, §12). Nil with no selected pair.
    public mutating func wrapOutgoing(_ data: [UInt8]) -> (bytes: [UInt8], from: ICETransportAddress, to: ICETransportAddress)? {
        guard let pair = selectedPair, state.hasSelectedPair else { return nil }
        guard pair.local.type == .relay else { return (data, pair.local.address, pair.remote.address) }
        guard let index = allocations.firstIndex(where: { $0.relayed == pair.local.address && $0.phase == .allocated })
        else { return nil }
        let id = newTransactionID()
        let bytes = allocations[index].wrap(data, to: pair.remote.address, indicationID: id)
        return (bytes, allocations[index].base, allocations[index].server.address)
    }

    /// Unwraps a datagram that arrived at `local` from one of our TURN servers: the application
    /// payload and the peer it came from, for a Data indication or ChannelData whose payload is
    /// not STUN. Nil for anything else (feed that to `receive(_:from:at:now:)`).
    public func unwrapIncoming(_ bytes: [UInt8], from source: ICETransportAddress,
                               at local: ICETransportAddress) -> (payload: [UInt8], peer: ICETransportAddress)? {
        guard let allocation = allocations.first(where: { $0.server.address == source && $0.base == local }),
              let (peer, payload) = allocation.unwrap(bytes),
              !payload.withUnsafeBytes({ STUNMessage.looksLikeSTUN($0) }) else { return nil }
        return (payload, peer)
    }
}
