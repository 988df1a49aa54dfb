import ParleyNet

/// The padding pacer of up-switch probes (`PeerSession+Probe`): armed after a housekeeping tick in
/// which a room session started a probe, it runs every `paddingInterval` while any session pads,
/// so a probe's padding leaves in small bursts (a 100 ms tick would send each tenth at once).
extension MediaTransportCore {
    static let paddingInterval: Duration = .milliseconds(10)

    /// Runs the pacer if a session pads and it is not running.
    func armPadding() {
        guard !paddingArmed, sessions.values.contains(where: { $0.isPadding }) else { return }
        paddingArmed = true
        let bound = LoopBound(self, loop: loop)
        loop.schedule(after: Self.paddingInterval) {
            let core = bound.value
            core.paddingArmed = false
            guard core.housekeeping, let batch = core.socket?.sendBatch else { return }
            let now = core.now
            for session in core.sessions.values where session.isPadding {
                core.stats.datagramsSent += session.sendPadding(now: now, batch: batch)
            }
            core.flush()
            core.armPadding()
        }
    }
}
