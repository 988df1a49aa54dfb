import STUN

extension ICEAgent {
    /// Sends a TURN request on `allocations[index]` as a retransmitted transaction.
    mutating func sendTURN(_ request: TURNRequest, allocation index: Int, now: ICEInstant) -> [ICEAgentAction] {
        let id = newTransactionID()
        let allocation = allocations[index]
        let bytes = allocation.encode(request, id: id, hmac: hmac)
        return [start(.turn(allocation: index, request: request), id: id,
                      send: .send(bytes, from: allocation.base, to: allocation.server.address),
                      rto: configuration.minimumRTO, now: now)]
    }

    /// A datagram from the TURN server of `allocations[index]`: relayed data (Data indication or
    /// ChannelData), or a response to one of our requests.
    mutating func receiveFromTURN(_ bytes: [UInt8], allocation index: Int, now: ICEInstant) -> [ICEAgentAction] {
        if let (peer, payload) = allocations[index].unwrap(bytes) {
            guard let relayed = allocations[index].relayed,
                  let local = localCandidate(at: relayed, type: .relay) else { return [] }
            if payload.withUnsafeBytes({ STUNMessage.looksLikeSTUN($0) }) {
                return receiveSTUN(payload, from: peer, local: local, now: now)
            }
            return noteTraffic(from: peer, now: now) + [.deliver(payload, from: peer)]
        }
        guard let message = try? STUNMessage(parsing: bytes) else {
            stats.malformed += 1
            return []
        }
        guard let transaction = transactions[message.transactionID],
              case .turn(let owner, let request) = transaction.purpose, owner == index else {
            stats.unmatchedResponses += 1
            return []
        }
        return turnResponse(message, bytes: bytes, allocation: index, request: request, now: now)
    }

    /// RFC 8656 §7.3 / RFC 8489 §9.2.5: a 401 (first contact) or 438 (stale nonce) is retried
    /// with the server's REALM and NONCE under the long-term key; success responses must carry
    /// valid MESSAGE-INTEGRITY once the key is known.
    mutating func turnResponse(_ message: STUNMessage, bytes: [UInt8], allocation index: Int, request: TURNRequest,
                               now: ICEInstant) -> [ICEAgentAction] {
        let id = message.transactionID
        if message.type.messageClass == .errorResponse {
            transactions[id] = nil
            let code = message.errorCode?.code
            if code == 401 || code == 438, allocations[index].authAttempts < 3, let md5,
               let realm = message.realm ?? allocations[index].realm, let nonce = message.nonce {
                allocations[index].realm = realm
                allocations[index].nonce = nonce
                let server = allocations[index].server
                allocations[index].key = STUNIntegrity.longTermKey(username: server.username, realm: realm,
                                                                   password: server.password, md5: md5)
                allocations[index].authAttempts += 1
                return sendTURN(request, allocation: index, now: now)
            }
            return turnRequestFailed(allocation: index, request: request, now: now)
        }
        guard message.type.messageClass == .successResponse else { return [] }
        if let key = allocations[index].key,
           !bytes.withUnsafeBytes({ ICEMessages.hasValidIntegrity($0, key: key, hmac: hmac) }) {
            stats.unmatchedResponses += 1
            return []
        }
        transactions[id] = nil
        allocations[index].authAttempts = 0
        switch request {
        case .allocate(let asked):
            return allocated(message, allocation: index, lifetime: message.lifetime ?? asked, now: now)
        case .refresh(let asked):
            let lifetime = message.lifetime ?? asked
            if lifetime == 0 {
                allocations[index].phase = .released
            } else {
                allocations[index].refreshAt = now.advanced(by: TURNAllocation.refreshDelay(lifetime: lifetime))
            }
        case .createPermission:
            break
        case .channelBind(let number, let peer):
            allocations[index].boundChannels[number] = peer
        }
        return []
    }

    /// The Allocate succeeded: XOR-RELAYED-ADDRESS becomes a relayed candidate (RFC 8445
    /// §5.1.1.2) and XOR-MAPPED-ADDRESS a server-reflexive one.
    private mutating func allocated(_ message: STUNMessage, allocation index: Int, lifetime: UInt32,
                                    now: ICEInstant) -> [ICEAgentAction] {
        guard let relayed = message.xorRelayedAddress.map(ICETransportAddress.init) else {
            return turnRequestFailed(allocation: index, request: .allocate(lifetime: lifetime), now: now)
        }
        let mapped = message.xorMappedAddress.map(ICETransportAddress.init)
        allocations[index].phase = .allocated
        allocations[index].relayed = relayed
        allocations[index].mapped = mapped
        allocations[index].refreshAt = now.advanced(by: TURNAllocation.refreshDelay(lifetime: lifetime))
        let server = allocations[index].server.address
        let candidate = ICECandidate(type: .relay, address: relayed, server: server,
                                     localPreference: UInt16(65535 - min(index, 65535)), relatedAddress: mapped)
        localCandidates.append(candidate)
        formPairs(local: candidate)
        var actions: [ICEAgentAction] = [.candidateGathered(candidate)]
        if let mapped { actions += addServerReflexive(mapped, base: allocations[index].base, server: server) }
        actions += gatheringStepDone()
        actions += startChecking()
        return actions
    }

    /// A TURN request failed or timed out.
    mutating func turnRequestFailed(allocation index: Int, request: TURNRequest, now: ICEInstant) -> [ICEAgentAction] {
        switch request {
        case .allocate:
            allocations[index].phase = .failed
            return gatheringStepDone()
        case .refresh(let lifetime):
            allocations[index].phase = lifetime == 0 ? .released : .failed
            return []
        case .createPermission(let peer):
            allocations[index].permissionRefreshAt[peer.ip] = nil  // asked again on the next send
            return []
        case .channelBind(let number, let peer):
            allocations[index].channels[peer] = nil
            allocations[index].channelRefreshAt[number] = nil
            return []
        }
    }

    /// Installs a permission for `peer`'s IP before relaying to it (RFC 8656 §9).
    mutating func ensurePermission(allocation index: Int, peer: ICETransportAddress, now: ICEInstant) -> [ICEAgentAction] {
        guard allocations[index].permissionRefreshAt[peer.ip] == nil else { return [] }
        allocations[index].permissionRefreshAt[peer.ip] = now.advanced(by: TURNAllocation.permissionRefresh)
        return sendTURN(.createPermission(peer), allocation: index, now: now)
    }

    /// Binds a channel to the selected relayed pair's peer (RFC 8656 §12), so media goes in
    /// 4-byte-header ChannelData instead of Send indications.
    mutating func bindChannel(relay: ICETransportAddress, peer: ICETransportAddress, now: ICEInstant) -> [ICEAgentAction] {
        guard let index = allocations.firstIndex(where: { $0.relayed == relay && $0.phase == .allocated }),
              allocations[index].channels[peer] == nil,
              allocations[index].channels.count < Int(ChannelData.channelRange.count) else { return [] }
        let number = ChannelData.channelRange.lowerBound + UInt16(allocations[index].channels.count)
        allocations[index].channels[peer] = number
        allocations[index].channelRefreshAt[number] = now.advanced(by: TURNAllocation.channelRefresh)
        return sendTURN(.channelBind(number, peer), allocation: index, now: now)
    }

    /// Refreshes allocations, permissions and channels that are due.
    mutating func turnTick(now: ICEInstant) -> [ICEAgentAction] {
        var actions: [ICEAgentAction] = []
        for index in allocations.indices where allocations[index].phase == .allocated {
            if let due = allocations[index].refreshAt, due <= now {
                allocations[index].refreshAt = nil  // set again by the response
                actions += sendTURN(.refresh(lifetime: configuration.turnLifetime), allocation: index, now: now)
            }
            for (ip, due) in allocations[index].permissionRefreshAt where due <= now {
                allocations[index].permissionRefreshAt[ip] = now.advanced(by: TURNAllocation.permissionRefresh)
                actions += sendTURN(.createPermission(ICETransportAddress(ip: ip, port: 0)), allocation: index, now: now)
            }
            for (number, due) in allocations[index].channelRefreshAt where due <= now {
                guard let peer = allocations[index].boundChannels[number] else { continue }
                allocations[index].channelRefreshAt[number] = now.advanced(by: TURNAllocation.channelRefresh)
                actions += sendTURN(.channelBind(number, peer), allocation: index, now: now)
            }
        }
        return actions
    }

    /// Deletes every allocation: a Refresh with LIFETIME 0, sent once (RFC 8656 §7.2).
    mutating func releaseAllocations(now: ICEInstant) -> [ICEAgentAction] {
        var actions: [ICEAgentAction] = []
        for index in allocations.indices where allocations[index].phase == .allocated {
            let bytes = allocations[index].encode(.refresh(lifetime: 0), id: newTransactionID(), hmac: hmac)
            actions.append(.send(bytes, from: allocations[index].base, to: allocations[index].server.address))
            allocations[index].phase = .released
        }
        return actions
    }
}
