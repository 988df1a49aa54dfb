import ParleyCore
import Synchronization

/// A `MonotonicClock` whose time moves only when a test moves it: `advance(by:)` wakes the
/// sleepers whose deadlines it passes, earliest first. Timers (ring
/// timeouts, reconnect windows, RFC 3261 transaction timers) then run in virtual time, with no
/// real waiting and in a deterministic order.
public final class VirtualClock: MonotonicClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: MonotonicInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: MonotonicInstant
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 1
        /// Sleepers that have not registered yet, and those of them cancelled meanwhile.
        var unregistered: Set<UInt64> = []
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Mutex<State>

    public init(start: MonotonicInstant = .zero) {
        state = Mutex(State(now: start))
    }

    public var now: MonotonicInstant { state.withLock { $0.now } }

    /// Tasks sleeping on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline a sleeper waits for, if any.
    public var nextDeadline: MonotonicInstant? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: MonotonicInstant) async throws {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            s.unregistered.insert(s.nextID)
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, resume, cancel }
                let outcome = state.withLock { s -> Outcome in
                    s.unregistered.remove(id)
                    if s.cancelledEarly.remove(id) != nil { return .cancel }
                    if deadline <= s.now { return .resume }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else {
                    // Not registered yet: it throws when it does. Already woken: nothing to do.
                    if s.unregistered.contains(id) { s.cancelledEarly.insert(id) }
                    return nil
                }
                return s.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking each sleeper whose deadline falls in it.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves time to `target` (never back), waking sleepers earliest first. Woken tasks run
    /// concurrently: one that reads the clock later sees `target`.
    public func advance(to target: MonotonicInstant) {
        while true {
            let due = state.withLock { s -> Sleeper? in
                guard let index = s.sleepers.indices.filter({ s.sleepers[$0].deadline <= target })
                    .min(by: { s.sleepers[$0].deadline < s.sleepers[$1].deadline }) else {
                    if target > s.now { s.now = target }
                    return nil
                }
                let sleeper = s.sleepers.remove(at: index)
                if sleeper.deadline > s.now { s.now = sleeper.deadline }
                return sleeper
            }
            guard let due else { return }
            due.continuation.resume()
        }
    }

    /// Waits, in real time and at most `timeout`, until at least `count` tasks sleep on this
    /// clock: a test calls it before `advance` so the code under test has reached its timer.
    /// Returns false on timeout.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while sleeperCount < count {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }
}
