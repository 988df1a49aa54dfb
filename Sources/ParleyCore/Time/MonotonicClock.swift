/// The time source of every timer, timeout and deadline: `SystemClock` in production, a
/// `VirtualClock` (the ParleyTestClock target) in tests, so timers such as a ring timeout or RFC
/// 3261's transaction timers run in virtual time.
public protocol MonotonicClock: Sendable {
    /// The current instant.
    var now: MonotonicInstant { get }

    /// Suspends until `deadline` (returns at once when it has passed).
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    func sleep(until deadline: MonotonicInstant) async throws
}

extension MonotonicClock {
    /// Suspends for `duration` from now.
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now.advanced(by: duration))
    }

    /// Runs `action` in a new task once `delay` has passed on this clock, unless the returned
    /// timer is cancelled first.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () async -> Void) -> ScheduledTimer {
        schedule(at: now.advanced(by: delay), action)
    }

    /// Runs `action` in a new task at `deadline` on this clock, unless the returned timer is
    /// cancelled first.
    @discardableResult
    public func schedule(at deadline: MonotonicInstant, _ action: @escaping @Sendable () async -> Void) -> ScheduledTimer {
        ScheduledTimer(Task { [self] in
            do { try await sleep(until: deadline) } catch { return }
            await action()
        })
    }
}

/// A timer from `MonotonicClock.schedule`: cancelling it before it fires means the action never runs.
public struct ScheduledTimer: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) { self.task = task }

    public func cancel() { task.cancel() }

    /// True once cancelled (the action then never starts).
    public var isCancelled: Bool { task.isCancelled }
}
