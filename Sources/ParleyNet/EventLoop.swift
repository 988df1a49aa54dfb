import CParleyLinux
import Foundation
import Glibc
import ParleyCore
import Synchronization

/// Something registered with an event loop for readiness on one file descriptor.
/// Called only on the loop's thread.
protocol EventHandler: AnyObject {
    func handleEvent(readable: Bool, writable: Bool, hangup: Bool)
    /// The loop is stopping: release the descriptor.
    func loopStopping()
}

/// One thread running epoll (level-triggered), an eventfd for cross-thread wakeups, and timers.
///
/// Other threads (and Swift tasks) hand work to the loop with `execute(_:)`; everything else —
/// registering descriptors, timers — happens on the loop thread.
///
/// `@unchecked Sendable`: `inbox`, `stopped` and `threadID` are synchronized; `handlers`,
/// `timers` and `eventBuffer` are loop-confined (asserted with `assertInLoop()`).
public final class EventLoop: @unchecked Sendable {
    let epfd: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    private let stopped = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)
    private var handlers: [Int32: any EventHandler] = [:]
    private var timers = TimerQueue()
    private var eventBuffer: [parley_epoll_ready]
    /// One receive buffer for every TCP channel of this loop (loop-confined): a channel reads into
    /// it and hands the bytes to its delegate at once, so an idle connection holds no read buffer.
    var tcpReadBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private static let maxEvents = 128

    /// Creates the loop and starts its thread, named `name`.
    public init(name: String = "parley-loop") throws {
        epfd = LinuxSyscalls.epollCreate()
        guard epfd >= 0 else { throw NetError.system("epoll_create1", errno) }
        wakeFD = LinuxSyscalls.eventFD()
        guard wakeFD >= 0 else { close(epfd); throw NetError.system("eventfd", errno) }
        eventBuffer = [parley_epoll_ready](repeating: parley_epoll_ready(), count: Self.maxEvents)
        _ = LinuxSyscalls.epollControl(epfd, LinuxSyscalls.EPOLL_CTL_ADD, wakeFD, events: LinuxSyscalls.EPOLLIN)
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Whether the caller is on this loop's thread.
    public var inEventLoop: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    func assertInLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "not on the event loop thread", file: file, line: line)
    }

    /// Runs `task` on the loop thread soon (never inline), waking the loop if it is in epoll_wait.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(task) }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Runs `task` on the loop after `delay` (from any thread).
    public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) {
        execute { [self] in _ = scheduleTimer(after: delay, task) }
    }

    /// A timer of this loop, for `cancelTimer`.
    public typealias TimerID = UInt64

    /// Loop thread only: runs `action` after `delay`; returns an id for `cancelTimer`.
    public func scheduleTimer(after delay: Duration, _ action: @escaping () -> Void) -> TimerID {
        assertInLoop()
        return timers.schedule(at: monotonicNanos() + delay.nanoseconds, action)
    }

    /// Loop thread only: runs `action` at `deadline` on `SystemClock`; returns an id for `cancelTimer`.
    public func scheduleTimer(at deadline: MonotonicInstant, _ action: @escaping () -> Void) -> TimerID {
        assertInLoop()
        return timers.schedule(at: UInt64(max(0, deadline.nanoseconds)), action)
    }

    /// Loop thread only: the timer's action will not run (nothing happens if it ran already).
    public func cancelTimer(_ id: TimerID?) {
        assertInLoop()
        if let id { timers.cancel(id) }
    }

    /// Loop thread only: watches `fd` for readability, plus writability if `writable`.
    func register(_ fd: Int32, handler: any EventHandler, writable: Bool = false) throws {
        assertInLoop()
        guard LinuxSyscalls.epollControl(epfd, LinuxSyscalls.EPOLL_CTL_ADD, fd, events: mask(writable)) == 0 else {
            throw NetError.system("epoll_ctl(ADD)", errno)
        }
        handlers[fd] = handler
    }

    func setWritableInterest(_ fd: Int32, _ writable: Bool) {
        assertInLoop()
        _ = LinuxSyscalls.epollControl(epfd, LinuxSyscalls.EPOLL_CTL_MOD, fd, events: mask(writable))
    }

    /// Loop thread only: watches `fd` for readability (and the peer's half-close) only if
    /// `readable`, and for writability if `writable`. Errors and hang-ups are always reported.
    func setInterest(_ fd: Int32, readable: Bool, writable: Bool) {
        assertInLoop()
        _ = LinuxSyscalls.epollControl(epfd, LinuxSyscalls.EPOLL_CTL_MOD, fd, events: mask(writable, readable: readable))
    }

    /// Loop thread only: stops watching `fd` (the caller closes it).
    func deregister(_ fd: Int32) {
        assertInLoop()
        _ = LinuxSyscalls.epollControl(epfd, LinuxSyscalls.EPOLL_CTL_DEL, fd, events: 0)
        handlers[fd] = nil
    }

    /// Stops the loop: registered handlers release their descriptors, then the thread exits.
    /// Returns without waiting; see `waitUntilStopped()`.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        execute {}
    }

    /// Blocks the calling thread until the loop thread has exited. Never call it on the loop.
    public func waitUntilStopped() {
        precondition(!inEventLoop)
        finished.wait()
        finished.signal()
    }

    private func mask(_ writable: Bool, readable: Bool = true) -> UInt32 {
        (readable ? LinuxSyscalls.EPOLLIN | LinuxSyscalls.EPOLLRDHUP : 0) | (writable ? LinuxSyscalls.EPOLLOUT : 0)
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        while !stopped.load(ordering: .acquiring) {
            let timeout = timers.timeoutMillis(now: monotonicNanos())
            let n = eventBuffer.withUnsafeMutableBufferPointer {
                LinuxSyscalls.epollWait(epfd, into: $0, timeoutMillis: timeout)
            }
            if n < 0 && errno != EINTR { Log.error(.core, "epoll_wait: errno \(errno)") }
            for i in 0..<Int(max(n, 0)) {
                let events = eventBuffer[i].events
                let fd = eventBuffer[i].fd
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                let hangup = events & (LinuxSyscalls.EPOLLHUP | LinuxSyscalls.EPOLLERR) != 0
                handlers[fd]?.handleEvent(readable: events & (LinuxSyscalls.EPOLLIN | LinuxSyscalls.EPOLLRDHUP) != 0 || hangup,
                                          writable: events & LinuxSyscalls.EPOLLOUT != 0, hangup: hangup)
            }
            for action in timers.expired(now: monotonicNanos()) { action() }
            let tasks = inbox.withLock { tasks in
                defer { tasks.removeAll(keepingCapacity: true) }
                return tasks
            }
            for task in tasks { task() }
        }
        for handler in Array(handlers.values) { handler.loopStopping() }
        handlers.removeAll()
        close(wakeFD)
        close(epfd)
        finished.signal()
    }
}

/// A fixed set of event loops; work is spread round-robin.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let counter = Atomic<Int>(0)

    /// Starts `threads` loops (at least one).
    public init(threads: Int = 1, name: String = "parley-loop") throws {
        loops = try (0..<max(1, threads)).map { try EventLoop(name: "\(name)-\($0)") }
    }

    /// The next loop in round-robin order.
    public func next() -> EventLoop {
        loops[counter.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop and waits for their threads to exit (call off-loop).
    public func shutdown() {
        for loop in loops { loop.stop() }
        for loop in loops { loop.waitUntilStopped() }
    }
}
