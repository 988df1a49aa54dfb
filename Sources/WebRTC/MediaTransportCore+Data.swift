import DataChannel
import ParleyCore
import ParleyNet
import SCTP

/// The room sessions whose SCTP association runs, for usrsctp's timers (loop-confined).
final class DataChannelRegistry {
    var sessions: [String: PeerSession] = [:]
    var timerArmed = false
}

/// Data channels on the loop: usrsctp's timers driven by the loop (every 10 ms while an
/// association runs, as RFC 9260's timers need no finer grain), and the routes between a
/// publisher's channel and the channels opened toward its subscribers.
extension MediaTransportCore {
    static let sctpTickInterval: Duration = .milliseconds(10)

    /// Notes a session whose association may have started (after DTLS input or a re-offer).
    func noteData(_ session: PeerSession) {
        guard session.roomData.transport?.isRunning == true, dataChannels.sessions[session.id] == nil else { return }
        dataChannels.sessions[session.id] = session
        armSCTPTimer()
    }

    /// The session is going: its channels close and the association is aborted.
    func forgetData(_ session: PeerSession) {
        dataChannels.sessions[session.id] = nil
        session.closeData(out: &outbox)
    }

    private func armSCTPTimer() {
        guard !dataChannels.timerArmed, !dataChannels.sessions.isEmpty else { return }
        dataChannels.timerArmed = true
        let bound = LoopBound(self, loop: loop)
        loop.schedule(after: Self.sctpTickInterval) {
            let core = bound.value
            core.dataChannels.timerArmed = false
            guard core.housekeeping else { return }
            SCTPAssociation.handleTimers()
            let now = core.now
            for session in Array(core.dataChannels.sessions.values) {
                guard session.roomData.transport?.isRunning == true, !session.state.isTerminal else {
                    core.dataChannels.sessions[session.id] = nil
                    continue
                }
                session.pollData(now: now, out: &core.outbox)
                core.after(session)
            }
            core.flush()
            core.armSCTPTimer()
        }
    }

    /// Sends the peer channel `source.label` of `source.session` on a channel of `sink.session`
    /// labelled `sink.label` (opened now, with the source channel's reliability), or closes that
    /// channel (nil source). See `MediaTransportServer.routeData`.
    func routeData(_ source: DataChannelAddress?, to sink: DataChannelAddress) -> Bool {
        guard let subscriber = sessions[sink.session], subscriber.kind == .room, !subscriber.state.isTerminal,
              subscriber.roomData.transport != nil else { return false }
        let existing = subscriber.roomData.outbound.first { $0.value.label == sink.label }
        defer { flush() }
        guard let source else {
            if let existing { subscriber.closeOutboundData(stream: existing.key, out: &outbox) }
            return true
        }
        guard source.session != sink.session, let publisher = sessions[source.session], publisher.kind == .room,
              !publisher.state.isTerminal,
              let inbound = publisher.roomData.inbound.first(where: { $0.value.channel.label == source.label })?.key
        else { return false }
        if let existing {
            if let current = existing.value.source, current.session === publisher, current.stream == inbound { return true }
            subscriber.closeOutboundData(stream: existing.key, out: &outbox)
        }
        guard let stream = subscriber.openOutboundData(label: sink.label, source: DataEnd(session: publisher, stream: inbound),
                                                       out: &outbox) else { return false }
        Log.debug(.webrtc, "data route \(source.session)/\(source.label) → \(sink.session)/\(sink.label) (stream \(stream))")
        return true
    }
}
