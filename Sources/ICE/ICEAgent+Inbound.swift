import STUN

extension ICEAgent {
    /// Handles STUN that arrived at `local` (a host candidate, or a relayed one after TURN
    /// unwrapping) from `source`.
    mutating func receiveSTUN(_ bytes: [UInt8], from source: ICETransportAddress, local: ICECandidate,
                              now: ICEInstant) -> [ICEAgentAction] {
        let generation = CredentialGeneration(local: localCredentials, remoteUfrag: remoteCredentials?.ufrag)
        let inbound = bytes.withUnsafeBytes { ICEMessages.classify($0, accepting: [generation], hmac: hmac) }
        switch inbound {
        case .malformed:
            stats.malformed += 1
            return []
        case .other(let message):
            guard message.type.messageClass == .successResponse || message.type.messageClass == .errorResponse else {
                return []  // Binding indications are keepalives; nothing to do
            }
            return handleResponse(message, bytes: bytes, from: source, local: local, now: now)
        case .reject(let request, let error, let unknown, let credentials):
            stats.rejected += 1
            let response = ICEMessages.bindingError(to: request, error: error, unknown: unknown,
                                                    password: credentials?.pwd, hmac: hmac)
            return reply(response, from: local, to: source, now: now)
        case .authenticated(let request, _):
            stats.checksReceived += 1
            return handleRequest(request, from: source, local: local, now: now)
        }
    }

    /// Answers a peer's check (RFC 8445 §7.3): role conflict first (§7.3.1.1), then a success
    /// response, a peer-reflexive candidate for an unknown source (§7.3.1.3), a triggered check
    /// (§7.3.1.4) and, when controlled, nomination (§7.3.1.5).
    mutating func handleRequest(_ request: STUNMessage, from source: ICETransportAddress, local: ICECandidate,
                                now: ICEInstant) -> [ICEAgentAction] {
        var actions: [ICEAgentAction] = []
        if role == .controlling, let theirs = request.iceControlling {
            if tieBreaker >= theirs { return conflict(request, from: source, local: local, now: now) }
            actions += switchRole(to: .controlled, now: now)
        } else if role == .controlled, let theirs = request.iceControlled {
            guard tieBreaker >= theirs else { return conflict(request, from: source, local: local, now: now) }
            actions += switchRole(to: .controlling, now: now)
        }
        let success = ICEMessages.bindingSuccess(to: request, mapped: source, password: localCredentials.pwd, hmac: hmac)
        actions += reply(success, from: local, to: source, now: now)
        // A check reaching a candidate the policy keeps from the peer is answered, never paired.
        guard localCandidates.contains(local) else { return actions }

        let remote: ICECandidate
        if let known = remoteCandidates.first(where: { $0.address == source }) {
            remote = known
        } else {
            remote = ICECandidate(foundation: ICECandidate.foundation(type: .prflx, baseIP: source.ipString,
                                                                      serverIP: nil, transport: .udp),
                                  priority: request.priority ?? ICECandidate.priority(type: .prflx, localPreference: 0),
                                  address: source, type: .prflx)
            remoteCandidates.append(remote)
        }
        guard let index = addPair(local: local, remote: remote) else { return actions }
        if pairs[index].state != .succeeded && pairs[index].state != .inProgress { trigger(index) }
        if request.hasUseCandidate, role == .controlled {
            if pairs[index].state == .succeeded {
                if !pairs[index].nominated { actions += select(pair: index, now: now) }
            } else {
                pairs[index].nominateOnSuccess = true
            }
        }
        if let selectedPair, selectedPair.local.address == local.address, selectedPair.remote.address == source {
            actions += noteTraffic(from: source, now: now)
        }
        actions += startChecking()
        return actions
    }

    /// RFC 8445 §7.3.1.1: answer 487 and keep our role.
    private mutating func conflict(_ request: STUNMessage, from source: ICETransportAddress, local: ICECandidate,
                                   now: ICEInstant) -> [ICEAgentAction] {
        stats.roleConflicts += 1
        let bytes = ICEMessages.bindingError(to: request, error: .roleConflict, password: localCredentials.pwd, hmac: hmac)
        return reply(bytes, from: local, to: source, now: now)
    }

    private mutating func reply(_ bytes: [UInt8], from local: ICECandidate, to remote: ICETransportAddress,
                                now: ICEInstant) -> [ICEAgentAction] {
        let (setup, send) = route(bytes, from: local, to: remote, now: now)
        return setup + (send.map { [$0] } ?? [])
    }

    /// A response to one of our requests arriving directly or through a relay.
    mutating func handleResponse(_ message: STUNMessage, bytes: [UInt8], from source: ICETransportAddress,
                                 local: ICECandidate, now: ICEInstant) -> [ICEAgentAction] {
        guard let transaction = transactions[message.transactionID] else {
            stats.unmatchedResponses += 1
            return []
        }
        switch transaction.purpose {
        case .check(let index, let useCandidate, let sentRole):
            guard pairs.indices.contains(index), let remoteCredentials,
                  bytes.withUnsafeBytes({ ICEMessages.hasValidIntegrity($0, password: remoteCredentials.pwd, hmac: hmac) })
            else {
                stats.unmatchedResponses += 1
                return []
            }
            transactions[message.transactionID] = nil
            // RFC 8445 §7.2.5.2.1: the response must come from where the check went, to where it left.
            guard source == pairs[index].remote.address, local.address == pairs[index].local.address else {
                return checkFailed(pair: index, now: now)
            }
            if message.type.messageClass == .errorResponse {
                guard message.errorCode?.code == STUNErrorCode.roleConflict.code else {
                    return checkFailed(pair: index, now: now)
                }
                // §7.2.5.1: switch to the role opposite the one the check claimed, and retry.
                var actions = switchRole(to: sentRole.opposite, now: now)
                if index == nominatingPair { nominatingPair = nil }
                if pairs[index].state != .succeeded { pairs[index].state = .waiting }
                trigger(index)
                actions += scheduleChecks(now: now)
                return actions
            }
            if selectedPair.map({ $0.local.address == local.address && $0.remote.address == source }) == true {
                consent.lastResponse = now
                consent.lastReceived = now
            }
            return checkSucceeded(pair: index, useCandidate: useCandidate, now: now)
        case .consent:
            guard let credentials = consent.remoteCredentials,
                  bytes.withUnsafeBytes({ ICEMessages.hasValidIntegrity($0, password: credentials.pwd, hmac: hmac) }),
                  message.type.messageClass == .successResponse else {
                stats.unmatchedResponses += 1
                return []
            }
            transactions[message.transactionID] = nil
            return consentResponse(from: source, now: now)
        case .serverReflexive(let base, let server):
            guard source == server else { return [] }
            transactions[message.transactionID] = nil
            return serverReflexiveResponse(message, base: base, server: server)
        case .turn:
            return []  // TURN responses arrive through `receiveFromTURN`
        }
    }
}
