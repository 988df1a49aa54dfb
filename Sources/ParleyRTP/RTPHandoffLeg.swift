/// What a leg does with an `RTPPacketHandoff` (on its loop).
public enum RTPHandoffChange: Sendable {
    /// The leg sends what the hand-off carries (it is the sink), or stops.
    case feed, unfeed
    /// The leg pushes what it receives into the hand-off (it is the source), or stops.
    case push, stopPushing
}

/// A leg of a media server that forwards across event loops: its hand-offs as source and as sink.
/// Loop thread only.
public protocol RTPHandoffLeg: AnyObject {
    /// Hand-offs the leg pushes what it receives into.
    var handoffs: [RTPPacketHandoff] { get set }
    /// Hand-offs whose packets the leg sends; while any, played frames are dropped.
    var incoming: [RTPPacketHandoff] { get set }
    /// What feeds the leg's stream changed (`RTPForwardingTrack.sourceChanged()`).
    func handoffOriginChanged()
}

extension RTPHandoffLeg {
    public func apply(_ change: RTPHandoffChange, _ handoff: RTPPacketHandoff) {
        switch change {
        case .feed:
            incoming.append(handoff)
            handoffOriginChanged()
        case .unfeed:
            incoming.removeAll { $0 === handoff }
            handoffOriginChanged()
        case .push:
            if !handoffs.contains(where: { $0 === handoff }) { handoffs.append(handoff) }
        case .stopPushing:
            handoffs.removeAll { $0 === handoff }
        }
    }

    /// Whether `handoff` feeds the leg.
    public func isFed(by handoff: RTPPacketHandoff) -> Bool { incoming.contains { $0 === handoff } }

    /// The leg is closing: hand-offs into it are closed, none is pushed into any more.
    public func dropHandoffs() {
        for handoff in incoming { handoff.close() }
        incoming = []
        handoffs = []
    }
}

/// A media server whose legs forward to legs of another server without decoding.
public protocol RTPHandoffServer: Sendable {
    /// Applies `change` to leg `id` on its loop; false if the leg is gone.
    func changeHandoff(_ change: RTPHandoffChange, _ handoff: RTPPacketHandoff, leg id: String) async -> Bool
    /// Runs `task` on the server's loop (from any thread).
    func executeOnLoop(_ task: @escaping @Sendable () -> Void)
    /// Loop thread only: sends what waits in `handoff` on leg `sink`'s stream.
    func drainHandoff(_ handoff: RTPPacketHandoff, into sink: String)
}

extension RTPHandoffServer {
    /// A new hand-off whose packets leg `sink` sends on its own stream; nil if no such leg.
    public func openHandoff(to sink: String, capacity: Int = 32, maxPayloadBytes: Int = 1280) async -> RTPPacketHandoff? {
        let handoff = RTPPacketHandoff(capacity: capacity, maxPayloadBytes: maxPayloadBytes, schedule: { executeOnLoop($0) }) {
            drainHandoff($0, into: sink)
        }
        return await changeHandoff(.feed, handoff, leg: sink) ? handoff : nil
    }
}
