/// How much a connection may queue for a peer that is slow to read, and for how long.
///
/// Above `highWater` queued bytes the connection stops reading from the peer (so a client that
/// pipelines requests or pings without reading the answers gets no more work done), and reads
/// again once the queue is down to `lowWater`. A peer that takes no byte for `stallTimeout` while
/// bytes wait is closed; more than `maxQueuedBytes` waiting (bytes the application pushes on its
/// own, such as WebSocket events) closes the connection at once.
public struct OutputLimits: Sendable, Hashable {
    public var highWater: Int
    public var lowWater: Int
    public var stallTimeout: Duration
    /// nil: no cap beyond back-pressure (HTTP, where one response is produced per request read).
    public var maxQueuedBytes: Int?

    public init(highWater: Int = 256 * 1024, lowWater: Int = 64 * 1024, stallTimeout: Duration = .seconds(30),
                maxQueuedBytes: Int? = nil) {
        self.highWater = highWater
        self.lowWater = min(lowWater, highWater)
        self.stallTimeout = stallTimeout
        self.maxQueuedBytes = maxQueuedBytes
    }
}

/// The output side of one connection as a value: fed the queued byte count after each write or
/// flush, it says when to stop and resume reading, and when the peer has stalled or overflowed.
/// Time is passed in (monotonic nanoseconds), so it is tested without a clock.
struct OutputGate: Sendable {
    enum Change: Equatable { case none, becameFull, drained, overflowed }

    let limits: OutputLimits
    /// Whether the queue went over the high-water mark and has not yet drained to the low one.
    private(set) var isFull = false
    /// When the peer last took bytes, or the queue last started from empty.
    private(set) var lastProgress: UInt64 = 0
    private var lastPending = 0

    init(limits: OutputLimits) { self.limits = limits }

    /// `pending` bytes wait after a write or flush at `now`; `progressed` if the kernel took some.
    mutating func update(pending: Int, progressed: Bool, now: UInt64) -> Change {
        if progressed || pending == 0 || lastPending == 0 { lastProgress = now }
        lastPending = pending
        if let cap = limits.maxQueuedBytes, pending > cap { return .overflowed }
        if !isFull && pending > limits.highWater {
            isFull = true
            return .becameFull
        }
        if isFull && pending <= limits.lowWater {
            isFull = false
            return .drained
        }
        return .none
    }

    /// Whether the peer has taken nothing for the stall timeout while `pending` bytes wait.
    func isStalled(pending: Int, now: UInt64) -> Bool {
        pending > 0 && now &- lastProgress >= limits.stallTimeout.nanoseconds
    }

    /// Nanoseconds from `now` until the peer counts as stalled, if nothing moves.
    func stallDeadline(now: UInt64) -> UInt64 {
        let deadline = lastProgress &+ limits.stallTimeout.nanoseconds
        return deadline > now ? deadline - now : 0
    }
}
