import ICE
import ParleyCore
import ParleyCrypto
import ParleyNet

/// The core's one loop timer: armed for the earliest deadline after every event, it runs ICE,
/// DTLS retransmission, the connect timeout and RTCP.
extension PeerConnectionCore {
    func startTicking() {
        guard !ticking else { return }
        ticking = true
        rescheduleTick()
    }

    /// Arms the loop timer for the earliest deadline (after every event: `flush` calls it), so
    /// the core sleeps until something is due instead of polling.
    func rescheduleTick() {
        guard ticking, !state.isTerminal else {
            loop.cancelTimer(tickTimer)
            tickTimer = nil
            tickDeadline = nil
            return
        }
        let next = nextDeadline()
        if let armed = tickDeadline, armed <= next { return }
        loop.cancelTimer(tickTimer)
        tickDeadline = next
        let bound = LoopBound(self, loop: loop)
        tickTimer = loop.scheduleTimer(at: next) {
            let core = bound.value
            core.tickTimer = nil
            core.tickDeadline = nil
            guard !core.state.isTerminal else { return }
            core.tick()
            core.flush()
        }
    }

    /// The earliest of the ICE agent's deadline, DTLS retransmission, the connect timeout and the
    /// next RTCP report; at most a second away.
    func nextDeadline() -> MonotonicInstant {
        let current = SystemClock.now
        var next = current.advanced(by: .seconds(1))
        if let ice = ice.nextDeadline { next = min(next, epoch.advanced(by: ice.sinceEpoch)) }
        if let dtls, dtls.state == .handshaking, let timeout = dtls.nextTimeout { next = min(next, current.advanced(by: timeout)) }
        if state != .connected, state != .disconnected, let remoteAt = timings.remoteDescription {
            next = min(next, epoch.advanced(by: remoteAt + configuration.connectTimeout))
        }
        if state == .connected { next = min(next, epoch.advanced(by: .nanoseconds(Int64(nextRTCPAt * 1e9)))) }
        return max(next, current)
    }

    /// ICE timers, DTLS retransmission, the connect timeout and RTCP.
    func tick() {
        let t = now
        apply(ice.tick(now: instant))
        if let dtls, dtls.state == .handshaking, let timeout = dtls.nextTimeout, timeout <= .milliseconds(1) {
            handleDTLS(dtls.handleTimeout())
        }
        if state != .connected, state != .disconnected, !state.isTerminal, let remoteAt = timings.remoteDescription,
           t - remoteAt.seconds >= configuration.connectTimeout.seconds {
            let iceDone = timings.iceConnected != nil
            fail(ParleyError(iceDone ? .mediaDtlsTransportFailed : .mediaConnection,
                             reason: "\(iceDone ? "DTLS" : "ICE") did not connect within \(configuration.connectTimeout)"))
            return
        }
        if state == .connected, t >= nextRTCPAt {
            nextRTCPAt = t + configuration.rtcpInterval.seconds
            sendReports()
        }
    }
}
