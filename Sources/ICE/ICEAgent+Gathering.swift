import STUN

extension ICEAgent {
    /// Gathers candidates (RFC 8445 §5.1.1) from the local addresses the I/O layer bound sockets
    /// to (loopback included if given): a host candidate each, then a server-reflexive one per
    /// STUN server (a Binding request, RFC 8489 §6) and a relayed one per TURN server (an
    /// Allocate, RFC 8656 §7). With the `.relay` policy only relayed candidates are signalled
    /// and paired. `.gatheringComplete` follows once every request has finished.
    public mutating func startGathering(hostAddresses: [ICETransportAddress], now: ICEInstant) -> [ICEAgentAction] {
        guard state != .closed, hostCandidates.isEmpty else { return [] }
        var actions: [ICEAgentAction] = []
        // Local preference falls in the given order, loopback addresses last (RFC 8445 §5.1.2.1
        // leaves the choice to the agent; loopback only ever reaches the same machine).
        let ordered = hostAddresses.filter { !$0.isLoopback } + hostAddresses.filter(\.isLoopback)
        for (i, address) in ordered.enumerated() where !hostCandidates.contains(where: { $0.address == address }) {
            let candidate = ICECandidate(type: .host, address: address, localPreference: UInt16(65535 - min(i, 65535)))
            hostCandidates.append(candidate)
            guard configuration.policy == .all else { continue }
            localCandidates.append(candidate)
            formPairs(local: candidate)
            actions.append(.candidateGathered(candidate))
        }
        if configuration.policy == .all {
            for server in configuration.stunServers {
                for base in hostCandidates where base.address.isSameFamily(as: server) && !base.address.isLoopback {
                    let id = newTransactionID()
                    let request = STUNMessage(type: .bindingRequest, transactionID: id)
                    let bytes = ICEMessages.encode(request, key: nil, hmac: hmac)
                    pendingGathering += 1
                    actions.append(start(.serverReflexive(base: base.address, server: server), id: id,
                                         send: .send(bytes, from: base.address, to: server),
                                         rto: configuration.minimumRTO, now: now))
                }
            }
        }
        for server in configuration.turnServers {
            let bases = hostCandidates.filter { $0.address.isSameFamily(as: server.address) }
            guard md5 != nil, let base = bases.first(where: { !$0.address.isLoopback }) ?? bases.first else { continue }
            allocations.append(TURNAllocation(server: server, base: base.address))
            pendingGathering += 1
            actions += sendTURN(.allocate(lifetime: configuration.turnLifetime), allocation: allocations.count - 1, now: now)
        }
        if pendingGathering == 0 { actions += gatheringStepDone(counted: false) }
        actions += startChecking()
        actions += tick(now: now)
        return actions
    }

    /// A Binding response from a STUN server: XOR-MAPPED-ADDRESS (or MAPPED-ADDRESS from an
    /// RFC 3489 server) becomes a server-reflexive candidate, unless it equals the base (no NAT)
    /// or one already found. It is signalled but not paired (RFC 8445 §6.1.2.4).
    mutating func serverReflexiveResponse(_ message: STUNMessage, base: ICETransportAddress,
                                          server: ICETransportAddress) -> [ICEAgentAction] {
        var actions: [ICEAgentAction] = []
        if message.type == .bindingSuccess, let mapped = (message.xorMappedAddress ?? message.mappedAddress).map(ICETransportAddress.init) {
            actions += addServerReflexive(mapped, base: base, server: server)
        }
        return actions + gatheringStepDone()
    }

    mutating func addServerReflexive(_ mapped: ICETransportAddress, base: ICETransportAddress,
                                     server: ICETransportAddress) -> [ICEAgentAction] {
        guard configuration.policy == .all, mapped != base,
              !localCandidates.contains(where: { $0.address == mapped }),
              let host = hostCandidates.first(where: { $0.address == base }) else { return [] }
        let candidate = ICECandidate(type: .srflx, address: mapped, base: base, server: server,
                                     localPreference: UInt16(truncatingIfNeeded: host.priority >> 8), relatedAddress: base)
        localCandidates.append(candidate)
        return [.candidateGathered(candidate)]
    }

    /// One gathering request finished; the last one completes gathering.
    mutating func gatheringStepDone(counted: Bool = true) -> [ICEAgentAction] {
        if counted { pendingGathering = max(pendingGathering - 1, 0) }
        guard pendingGathering == 0, !isGatheringComplete else { return [] }
        isGatheringComplete = true
        return [.gatheringComplete] + updateFailure()
    }
}
