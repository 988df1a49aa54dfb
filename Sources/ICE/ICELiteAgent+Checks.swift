import STUN

extension ICELiteAgent {
    /// Answers an authenticated check (RFC 8445 §7.3) and applies its side effects: the peer's
    /// address is learned (§7.3.1.3), USE-CANDIDATE selects the pair (§7.3.1.5), and a check on
    /// the selected pair refreshes consent (RFC 7675 §5.1).
    mutating func handleCheck(_ request: STUNMessage, credentials: ICECredentials, from source: ICETransportAddress,
                              now: ICEInstant) -> [ICEAction] {
        stats.requests += 1
        // RFC 8445 §7.3.1.1: the peer claims the controlled role too. The rule would make the
        // agent with the larger tie-breaker controlling, but a lite agent never controls
        // (§6.1.1), so the full peer is always told 487 and must switch.
        if request.iceControlled != nil {
            stats.roleConflicts += 1
            return [.send(ICEMessages.bindingError(to: request, error: .roleConflict, password: credentials.pwd,
                                                   hmac: hmac), to: source)]
        }
        var actions: [ICEAction] = [
            .send(ICEMessages.bindingSuccess(to: request, mapped: source, password: credentials.pwd, hmac: hmac),
                  to: source),
        ]
        let currentGeneration = credentials == localCredentials
        if currentGeneration { previousGeneration = nil }  // the peer has moved to the new credentials
        learn(source, now: now)
        if state == .new { actions += transition(to: .checking) }
        guard state != .failed else { return actions }

        if request.hasUseCandidate {
            stats.nominations += 1
            if source != selectedAddress || (currentGeneration && !nominatedInCurrentGeneration) {
                selectedAddress = source
                actions.append(.selected(source))
            }
            if currentGeneration { nominatedInCurrentGeneration = true }
        }
        if source == selectedAddress {
            lastConsent = now
            lastActivity = now
            if state == .checking || state == .disconnected { actions += transition(to: .connected) }
        }
        return actions
    }

    /// Remembers a peer address, forgetting the stalest one beyond `maxPeerAddresses`.
    mutating func learn(_ address: ICETransportAddress, now: ICEInstant) {
        if peerAddresses[address] == nil, peerAddresses.count >= max(configuration.maxPeerAddresses, 1),
           let stalest = peerAddresses.filter({ $0.key != selectedAddress }).min(by: { $0.value < $1.value })?.key {
            peerAddresses[stalest] = nil
        }
        peerAddresses[address] = now
    }

    mutating func transition(to new: ICEConnectionState) -> [ICEAction] {
        guard new != state else { return [] }
        state = new
        return [.stateChanged(new)]
    }

    /// The local ufrag a Binding request is addressed to: the part of USERNAME before the colon
    /// (RFC 8445 §7.2.2). Lets a server that shares one UDP port among sessions route a first
    /// check to its agent. Nil for anything else; nothing is verified.
    public static func localUfrag(ofBindingRequest bytes: UnsafeRawBufferPointer) -> String? {
        guard STUNMessage.looksLikeSTUN(bytes), let message = try? STUNMessage(parsing: bytes),
              message.type == .bindingRequest, let username = message.username,
              let colon = username.firstIndex(of: ":") else { return nil }
        return String(username[..<colon])
    }

    /// `localUfrag(ofBindingRequest:)` for an array.
    public static func localUfrag(ofBindingRequest bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { localUfrag(ofBindingRequest: $0) }
    }
}
