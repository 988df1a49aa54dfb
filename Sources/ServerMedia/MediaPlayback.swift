import Synchronization

/// One playback started by `CallMediaPlayer.start`: the engine awaits `ended()` to move past a
/// `<Say>` or `<Play>`, or stops it early through the player.
public final class MediaPlayback: Sendable {
    public enum Outcome: Hashable, Sendable {
        /// The source ran out (a finite `<Say>`, `<Play>`, `<Pause>`).
        case finished
        /// `stop(session:)` ended it (barge-in by `<Gather>`, hangup, a bridge).
        case stopped
        /// Another `start` on the same session replaced it.
        case replaced
        /// Encoding failed; the reason is logged and given here.
        case failed(String)
    }

    public let session: String
    public let codec: CallAudioCodec
    private let state = Mutex(State())

    private struct State {
        var outcome: Outcome?
        var framesPlayed = 0
        var waiters: [CheckedContinuation<Outcome, Never>] = []
        var onEnd: (@Sendable (Outcome) -> Void)?
    }

    init(session: String, codec: CallAudioCodec, onEnd: (@Sendable (Outcome) -> Void)?) {
        self.session = session
        self.codec = codec
        state.withLock { $0.onEnd = onEnd }
    }

    /// How it ended, or nil while it plays.
    public var outcome: Outcome? { state.withLock { $0.outcome } }

    /// 20 ms frames handed to the sink so far.
    public var framesPlayed: Int { state.withLock { $0.framesPlayed } }

    /// Waits until the playback ends and returns how.
    public func ended() async -> Outcome {
        await withCheckedContinuation { continuation in
            let done: Outcome? = state.withLock { s in
                if let outcome = s.outcome { return outcome }
                s.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    func countFrame() {
        state.withLock { $0.framesPlayed += 1 }
    }

    /// Records the outcome once and wakes the waiters; later calls do nothing.
    func resolve(_ outcome: Outcome) {
        let (waiters, onEnd): ([CheckedContinuation<Outcome, Never>], (@Sendable (Outcome) -> Void)?) = state.withLock { s in
            guard s.outcome == nil else { return ([], nil) }
            s.outcome = outcome
            defer {
                s.waiters = []
                s.onEnd = nil
            }
            return (s.waiters, s.onEnd)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
        onEnd?(outcome)
    }
}
