import ICE
import ParleyCore
import ParleyNet
import ParleyRTP

extension PeerConnection {
    /// ICE restart (RFC 8445 §9, RFC 8839 §4.4.1.1.1), for the side that made the first offer:
    /// new local ICE credentials, the checklist starts over, and a new offer is returned for the
    /// peer. Apply its answer with `setRemoteAnswer(_:)`. DTLS and SRTP are kept, and media stays
    /// on the current pair until a new one is selected under the new credentials. This is also
    /// how a connection whose ICE was lost after it connected (consent expired, RFC 7675 §5.1: it
    /// stays `.disconnected` and sends nothing) comes back; restart again if the checks fail.
    /// - Throws: 53400 when we did not offer, have no answer yet, or are closed.
    public func restartICE() async throws(ParleyError) -> String {
        let core = self.core
        let result: Result<String, ParleyError> = await withCheckedContinuation { done in
            loop.execute { done.resume(returning: core.value.restartICE()) }
        }
        return try result.get()
    }
}

extension PeerConnection {
    /// Drops every datagram in and out while `blocked` (a network outage, for reconnection tests
    /// inside this package); ICE notices as it would a real one.
    /// The receiver's jitter-buffer delay now: lost audio is asked for again (RFC 4585 NACK) only
    /// while a retransmission can still arrive within it.
    public func setPlayoutBudget(_ budget: Duration) {
        let core = self.core
        loop.execute { core.value.nackPlayoutBudget = max(budget.seconds, 0) }
    }

    package func simulateNetworkOutage(_ blocked: Bool) async {
        let core = self.core
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                core.value.isNetworkBlocked = blocked
                done.resume()
            }
        }
    }
}

extension PeerConnectionCore {
    func restartICE() -> Result<String, ParleyError> {
        guard isOfferer, remote != nil, !state.isTerminal, gatheringWaiter == nil, !media.offerPending else {
            return .failure(ParleyError(.mediaClientLocalDescFailed,
                                        reason: "ICE restart needs an answered offer of ours, an open connection and no offer waiting"))
        }
        apply(ice.restart(remoteCredentials: nil, now: instant))
        iceRestartPending = true
        let sdp = ClientSDP.offer(self)
        localSDP = sdp
        flush()
        Log.info(.webrtc, "pc: ICE restart, new offer")
        return .success(sdp)
    }

    /// The answer to a restart offer: the peer's new credentials and candidates. The DTLS
    /// fingerprint must not change (DTLS is kept).
    func applyRestartAnswer(_ answer: MediaOffer) -> Result<Void, ParleyError> {
        guard !state.isTerminal, let current = remote else {
            return .failure(ParleyError(.mediaClientRemoteDescFailed, reason: "closed"))
        }
        guard answer.remoteFingerprints.contains(where: { current.remoteFingerprints.contains($0) }) else {
            return .failure(ParleyError(.mediaClientRemoteDescFailed,
                                        reason: "the restart answer changes the DTLS certificate"))
        }
        iceRestartPending = false
        remote = answer
        rtp.payloadFormats = RTPPayloadFormats(answer.payloadFormats(telephoneEvent: isOfferer))
        stats.payloadType = answer.payloadType
        addRemoteCandidates(answer)
        flush()
        return .success(())
    }
}
