/// A packet that a conditioner hands back when it is due.
public struct ConditionedDelivery<Payload> {
    public var payload: Payload
    /// When the network delivers it (µs, the caller's clock).
    public var time: Int64
    /// When it was submitted.
    public var submitted: Int64
    /// The submission number of its packet (0, 1, 2…; both copies of a duplicate share it).
    public var sequence: UInt64

    /// One-way delay through the network, µs.
    public var delay: Int64 { time - submitted }
}

extension ConditionedDelivery: Sendable where Payload: Sendable {}

/// A simulated network path: loss (random or Gilbert-Elliott), delay, jitter, reordering,
/// duplication and a rate limit (see `NetworkConditions`), seeded and repeatable. A value type on a
/// virtual clock: the caller passes the time (µs of any monotonic clock) to every call, so the same
/// seed, conditions and submissions give the same schedule.
///
/// Generic over what it carries: an RTP packet, a datagram, or an index into the caller's own buffers
/// (the UDP relay does that, so nothing is copied or allocated per packet). A duplicated packet comes
/// out twice with the same payload value.
///
///     var path = NetworkConditioner<[UInt8]>(conditions: .init(loss: .random(percent: 5), delayMicroseconds: 40_000), seed: 1)
///     path.submit(packet, length: packet.count, at: now)
///     while let delivery = path.dequeueDue(at: later) { receive(delivery.payload) }
public struct NetworkConditioner<Payload> {
    /// The conditions; changes apply to packets submitted afterwards.
    public var conditions: NetworkConditions {
        didSet {
            if conditions.rateBitsPerSecond != oldValue.rateBitsPerSecond || conditions.bucketBytes != oldValue.bucketBytes
                || conditions.queueLimitPackets != oldValue.queueLimitPackets {
                bucket = Self.makeBucket(conditions)
            }
        }
    }
    public private(set) var statistics = NetworkConditionerStatistics()

    private var random: SeededGenerator
    private var inBadState = false
    private var bucket: TokenBucket
    private var scheduled: DeliveryHeap<Payload>
    private var lastInOrderDelivery = Int64.min
    private var nextSequence: UInt64 = 0
    private var highestDeliveredSequence: UInt64?

    /// A path with `conditions`, its random choices drawn from `seed`. `capacity` preallocates room
    /// for that many packets in flight.
    public init(conditions: NetworkConditions = NetworkConditions(), seed: UInt64, capacity: Int = 256) {
        self.conditions = conditions
        random = SeededGenerator(seed: seed)
        bucket = Self.makeBucket(conditions)
        scheduled = DeliveryHeap(capacity: capacity)
    }

    /// Packets scheduled and not yet dequeued.
    public var pendingCount: Int { scheduled.count }

    /// When the next packet is due, nil if none is in flight.
    public var nextDeliveryTime: Int64? { scheduled.first?.time }

    /// Submits a packet of `length` bytes at `now`; returns how many copies were scheduled (0 if it
    /// was lost or the rate limiter's queue was full, 2 if it was duplicated).
    @discardableResult
    public mutating func submit(_ payload: Payload, length: Int, at now: Int64) -> Int {
        let sequence = nextSequence
        nextSequence &+= 1
        statistics.submitted += 1
        if isLost() {
            statistics.droppedByLoss += 1
            return 0
        }
        let copies = chance(conditions.duplicatePercent) ? 2 : 1
        if copies == 2 { statistics.duplicated += 1 }
        var count = 0
        for _ in 0..<copies {
            guard let departure = bucket.admit(length: length, at: now) else {
                statistics.droppedByQueue += 1
                continue
            }
            var time = departure + max(conditions.delayMicroseconds, 0) + jitterDraw()
            if chance(conditions.reorderPercent) {
                time += max(conditions.reorderDelayMicroseconds, 0)
                statistics.reordered += 1
            } else if !conditions.allowsReordering {
                time = max(time, lastInOrderDelivery)
                lastInOrderDelivery = time
            }
            scheduled.push(time: time, submitted: now, sequence: sequence, payload: payload)
            count += 1
        }
        return count
    }

    /// The next packet due at or before `now`, in delivery order; nil when none is due.
    public mutating func dequeueDue(at now: Int64) -> ConditionedDelivery<Payload>? {
        guard let first = scheduled.first, first.time <= now, let entry = scheduled.popFirst() else { return nil }
        let delay = entry.time - entry.submitted
        statistics.delivered += 1
        statistics.totalDelayMicroseconds += delay
        statistics.maxDelayMicroseconds = max(statistics.maxDelayMicroseconds, delay)
        if let highest = highestDeliveredSequence, entry.sequence < highest {
            statistics.deliveredOutOfOrder += 1
        } else {
            highestDeliveredSequence = entry.sequence
        }
        return ConditionedDelivery(payload: entry.payload, time: entry.time, submitted: entry.submitted, sequence: entry.sequence)
    }

    /// Drops everything in flight (not counted as delivered).
    public mutating func removeAll() { scheduled.removeAll() }

    /// Drops everything in flight (not counted as delivered), handing each dropped copy's payload to
    /// `body` first (so a caller can release the buffer it names); returns how many there were.
    @discardableResult
    public mutating func removeAll(_ body: (Payload) -> Void) -> Int {
        let count = scheduled.count
        scheduled.removeAll(body)
        return count
    }

    private mutating func isLost() -> Bool {
        switch conditions.loss {
        case .none:
            return false
        case .random(let percent):
            return chance(percent)
        case .gilbertElliott(let model):
            // The current state decides this packet, then the chain steps (RFC 3611 §4.7.2).
            let lost = random.unit() < (inBadState ? model.lossInBad : model.lossInGood)
            inBadState = random.unit() < (inBadState ? 1 - model.r : model.p)
            return lost
        }
    }

    private mutating func chance(_ percent: Double) -> Bool {
        guard percent > 0 else { return false }
        return random.unit() * 100 < percent
    }

    private mutating func jitterDraw() -> Int64 {
        let jitter = conditions.jitterMicroseconds
        guard jitter > 0 else { return 0 }
        return min(Int64(random.unit() * Double(jitter + 1)), jitter)
    }

    private static func makeBucket(_ conditions: NetworkConditions) -> TokenBucket {
        TokenBucket(rateBitsPerSecond: conditions.rateBitsPerSecond, depthBytes: conditions.bucketBytes,
                    queueLimit: conditions.queueLimitPackets)
    }
}

extension NetworkConditioner: Sendable where Payload: Sendable {}
