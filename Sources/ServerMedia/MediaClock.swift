import Foundation
import ParleyCore
import Synchronization

/// Something driven every 20 ms by a `MediaClock` (the call media player).
public protocol MediaClockTarget: AnyObject, Sendable {
    /// One 20 ms step. Runs on the clock's thread; must not block.
    func tick()
}

/// The server's one media clock: a thread that wakes every 20 ms on absolute deadlines of the
/// monotonic clock (so ticks do not drift) and ticks every target. Hundreds of calls share it,
/// instead of a timer each. When the thread falls more than 100 ms behind (a stalled machine) it
/// skips the missed ticks rather than bursting them.
public final class MediaClock: Sendable {
    /// Nanoseconds between ticks.
    public static let intervalNanoseconds: UInt64 = 20_000_000
    static let maximumLagNanoseconds: UInt64 = 100_000_000

    public struct Statistics: Sendable, Equatable {
        public var ticks = 0
        /// Ticks that started more than 5 ms after their deadline.
        public var lateTicks = 0
        /// Ticks dropped after a stall.
        public var skippedTicks = 0
    }

    public let name: String
    private let targets = Mutex<[any MediaClockTarget]>([])
    private let stats = Mutex(Statistics())
    private let running = Atomic<Bool>(false)
    private let exited = Mutex<DispatchSemaphore?>(nil)

    public init(name: String = "parley-media-clock") {
        self.name = name
    }

    deinit { running.store(false, ordering: .releasing) }

    /// Adds `target` (ticked from the next tick on). Adding it twice ticks it twice.
    public func add(_ target: any MediaClockTarget) {
        targets.withLock { $0.append(target) }
    }

    public func remove(_ target: any MediaClockTarget) {
        targets.withLock { list in list.removeAll { $0 === target } }
    }

    public var statistics: Statistics { stats.withLock { $0 } }

    public var isRunning: Bool { running.load(ordering: .acquiring) }

    /// Starts the clock thread; does nothing when it runs already.
    public func start() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let done = DispatchSemaphore(value: 0)
        exited.withLock { $0 = done }
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Stops the thread and waits (at most one tick) until it has left its loop: no target is
    /// ticked after this returns.
    public func stop() {
        guard running.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged else { return }
        exited.withLock { $0 }?.wait()
    }

    private func run() {
        var deadline = Self.monotonicNanoseconds()
        while running.load(ordering: .acquiring) {
            deadline += Self.intervalNanoseconds
            Self.sleep(until: deadline)
            guard running.load(ordering: .acquiring) else { break }
            let list = targets.withLock { $0 }
            for target in list { target.tick() }
            let now = Self.monotonicNanoseconds()
            stats.withLock { s in
                s.ticks += 1
                if now > deadline + 5_000_000 { s.lateTicks += 1 }
                if now > deadline + Self.maximumLagNanoseconds {
                    s.skippedTicks += Int((now - deadline) / Self.intervalNanoseconds)
                }
            }
            if now > deadline + Self.maximumLagNanoseconds { deadline = now }
        }
    }

    static func monotonicNanoseconds() -> UInt64 { UInt64(SystemClock.now.nanoseconds) }

    /// CPU time the calling thread has used, in nanoseconds.
    static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    private static func sleep(until deadline: UInt64) {
        SystemClock.blockThread(until: MonotonicInstant(nanoseconds: Int64(deadline)))
    }
}
