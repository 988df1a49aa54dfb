/// What a simulated network does to packets. All times are microseconds; every random choice comes
/// from the conditioner's seeded generator, so a run is repeatable from its seed.
///
/// The order per packet, as in Linux netem: loss, duplication, the rate limiter's queue, delay and
/// jitter, reordering.
public struct NetworkConditions: Sendable, Hashable, Codable {
    /// How packets are lost.
    public enum Loss: Sendable, Hashable, Codable {
        /// No loss.
        case none
        /// Each packet lost independently with this probability, in percent (Bernoulli).
        case random(percent: Double)
        /// Bursty loss.
        case gilbertElliott(GilbertElliott)
    }

    public var loss: Loss = .none
    /// Fixed one-way delay added to every packet.
    public var delayMicroseconds: Int64 = 0
    /// Jitter as peak-to-peak delay variation: each packet gets an extra delay drawn uniformly from
    /// [0, jitter], so one-way delays span [delay, delay + jitter]. (An RFC 3550 §6.4.1 interarrival
    /// jitter estimator reads about a third of this for packets that keep their order.)
    public var jitterMicroseconds: Int64 = 0
    /// Whether jitter may reorder packets. If not, a packet never overtakes the one sent before it:
    /// its delivery time is the later of its own and the previous packet's (the variation is then
    /// still at most `jitterMicroseconds`, but skewed late).
    public var allowsReordering = false
    /// Percent of packets deliberately held back by `reorderDelayMicroseconds` so that later ones
    /// overtake them. Applies whether or not `allowsReordering` is set; held-back packets do not hold
    /// back the packets after them.
    public var reorderPercent = 0.0
    /// Extra delay of a held-back packet.
    public var reorderDelayMicroseconds: Int64 = 30_000
    /// Percent of packets delivered twice (each copy is delayed independently).
    public var duplicatePercent = 0.0
    /// A rate limit in bits per second (nil: none): a token bucket of `bucketBytes` drained in FIFO
    /// order, with at most `queueLimitPackets` packets waiting; a packet that finds the queue full is
    /// dropped (drop-tail). Only the packets' own bytes count (no IP/UDP overhead).
    public var rateBitsPerSecond: Int64?
    /// The token bucket's depth: how many bytes may leave back-to-back at once.
    public var bucketBytes = 1500
    /// Packets that may wait for the rate limiter.
    public var queueLimitPackets = 100

    /// A network that delivers everything at once, in order.
    public init() {}

    public init(loss: Loss = .none, delayMicroseconds: Int64 = 0, jitterMicroseconds: Int64 = 0,
                allowsReordering: Bool = false, reorderPercent: Double = 0, reorderDelayMicroseconds: Int64 = 30_000,
                duplicatePercent: Double = 0, rateBitsPerSecond: Int64? = nil, bucketBytes: Int = 1500,
                queueLimitPackets: Int = 100) {
        self.loss = loss
        self.delayMicroseconds = delayMicroseconds
        self.jitterMicroseconds = jitterMicroseconds
        self.allowsReordering = allowsReordering
        self.reorderPercent = reorderPercent
        self.reorderDelayMicroseconds = reorderDelayMicroseconds
        self.duplicatePercent = duplicatePercent
        self.rateBitsPerSecond = rateBitsPerSecond
        self.bucketBytes = bucketBytes
        self.queueLimitPackets = queueLimitPackets
    }

    /// Random loss of `percent`, or bursty loss with that average when `meanBurstLength` is given.
    public static func loss(percent: Double, meanBurstLength: Double? = nil) -> Loss {
        guard percent > 0 else { return .none }
        if let meanBurstLength {
            return .gilbertElliott(GilbertElliott(averageLossPercent: percent, meanBurstLength: meanBurstLength))
        }
        return .random(percent: percent)
    }
}

/// What a conditioner did, counted per packet.
public struct NetworkConditionerStatistics: Sendable, Hashable, Codable {
    /// Packets handed to `submit`.
    public var submitted = 0
    /// Packets dropped by the loss model.
    public var droppedByLoss = 0
    /// Copies dropped because the rate limiter's queue was full.
    public var droppedByQueue = 0
    /// Packets that were duplicated (each adds one copy).
    public var duplicated = 0
    /// Copies held back by the reorder rule.
    public var reordered = 0
    /// Copies handed out by `dequeueDue`.
    public var delivered = 0
    /// Delivered copies that came out after a packet submitted later than them.
    public var deliveredOutOfOrder = 0
    /// Sum and maximum of the delivered copies' delays (delivery − submission), µs.
    public var totalDelayMicroseconds: Int64 = 0
    public var maxDelayMicroseconds: Int64 = 0

    public init() {}

    /// Mean delay of the delivered copies, µs (0 before any).
    public var meanDelayMicroseconds: Double {
        delivered > 0 ? Double(totalDelayMicroseconds) / Double(delivered) : 0
    }
}
