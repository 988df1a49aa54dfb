import ParleyCore
import ParleyTestClock
import Synchronization
import Testing

@Suite struct VirtualClockTests {
    @Test func sleepersWakeInDeadlineOrderOnlyWhenTheirTimeIsPassed() async {
        let clock = VirtualClock()
        let woken = Shared<[(Int, MonotonicInstant)]>([])
        @Sendable func sleeper(_ ms: Int) -> Task<Void, any Error> {
            Task {
                try await clock.sleep(for: .milliseconds(ms))
                woken.withLock { $0.append((ms, clock.now)) }
            }
        }
        let late = sleeper(300), early = sleeper(100), middle = sleeper(200)
        #expect(await clock.waitForSleepers(3))
        clock.advance(by: .milliseconds(150))
        _ = await early.result
        #expect(woken.withLock { $0.map(\.0) } == [100])
        #expect(clock.now == MonotonicInstant.zero.advanced(by: .milliseconds(150)))
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(1))
        _ = await middle.result
        _ = await late.result
        #expect(woken.withLock { Set($0.map(\.0)) } == [100, 200, 300])
        #expect(clock.sleeperCount == 0)
    }

    @Test func aPassedDeadlineReturnsAtOnce() async throws {
        let clock = VirtualClock(start: MonotonicInstant(nanoseconds: 5_000))
        try await clock.sleep(until: MonotonicInstant(nanoseconds: 1_000))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndRemovesIt() async {
        let clock = VirtualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        #expect(await clock.waitForSleepers(1))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.sleeperCount == 0)
    }

    @Test func aScheduledTimerRunsOnlyWhenItsTimeComesAndNeverOnceCancelled() async {
        let clock = VirtualClock()
        let fired = Shared<[String]>([])
        clock.schedule(after: .seconds(30)) { fired.withLock { $0.append("ring timeout") } }
        let cancelled = clock.schedule(after: .seconds(10)) { fired.withLock { $0.append("cancelled") } }
        #expect(await clock.waitForSleepers(2))
        cancelled.cancel()
        clock.advance(by: .seconds(29))
        #expect(fired.withLock { $0 }.isEmpty)
        clock.advance(by: .seconds(1))
        for _ in 0..<1000 where fired.withLock({ $0.isEmpty }) { await Task.yield() }
        #expect(fired.withLock { $0 } == ["ring timeout"])
    }

    @Test func systemClockInstantsMoveForwardAndDurationsAreExact() async throws {
        let clock = SystemClock()
        let start = clock.now
        try await clock.sleep(for: .milliseconds(2))
        #expect(start.duration(to: clock.now) >= .milliseconds(2))
        #expect(start.advanced(by: .milliseconds(1500)).seconds(since: start) == 1.5)
        #expect(Duration.seconds(3).wholeNanoseconds == 3_000_000_000)
        #expect(Duration.seconds(Int64.max).wholeNanoseconds == .max)
    }
}

/// A value several tasks append to (a local `Mutex` cannot be captured by a task).
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
