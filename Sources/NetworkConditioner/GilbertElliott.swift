/// The Gilbert-Elliott model of bursty loss: a two-state Markov chain stepped once per packet.
/// In the good state a packet is lost with probability `lossInGood`, in the bad state with
/// `lossInBad`; the chain moves good → bad with probability `p` and bad → good with `r`
/// (the notation of RFC 3611 §4.7.2 and of Linux netem's `loss gemodel p r 1-h 1-k`).
///
/// With `lossInBad` 1 and `lossInGood` 0 (the simple Gilbert model) every stay in the bad state is
/// one burst of losses, geometric with mean length 1 / r, and the average loss is p / (p + r).
public struct GilbertElliott: Sendable, Hashable, Codable {
    /// Probability of moving from the good to the bad state, per packet.
    public var p: Double
    /// Probability of moving from the bad to the good state, per packet.
    public var r: Double
    /// Loss probability in the bad state (netem's 1 − h).
    public var lossInBad: Double
    /// Loss probability in the good state (netem's 1 − k).
    public var lossInGood: Double

    public init(p: Double, r: Double, lossInBad: Double = 1, lossInGood: Double = 0) {
        self.p = Self.probability(p)
        self.r = Self.probability(r)
        self.lossInBad = Self.probability(lossInBad)
        self.lossInGood = Self.probability(lossInGood)
    }

    /// The simple Gilbert model whose average loss is `averageLossPercent` and whose bursts last
    /// `meanBurstLength` packets on average: r = 1 / burst, p = r · loss / (1 − loss). Loss that the
    /// burst length cannot reach (p would exceed 1) is capped at burst / (burst + 1), with p = 1.
    public init(averageLossPercent: Double, meanBurstLength: Double) {
        let loss = min(max(averageLossPercent.isFinite ? averageLossPercent : 0, 0), 99) / 100
        let burst = max(meanBurstLength.isFinite ? meanBurstLength : 1, 1)
        let r = 1 / burst
        self.init(p: min(r * loss / (1 - loss), 1), r: r)
    }

    /// The long-run share of packets sent in the bad state, p / (p + r).
    public var badStateProbability: Double { p + r > 0 ? p / (p + r) : 0 }

    /// The long-run loss probability.
    public var averageLoss: Double {
        let bad = badStateProbability
        return bad * lossInBad + (1 - bad) * lossInGood
    }

    private static func probability(_ x: Double) -> Double { x.isFinite ? min(max(x, 0), 1) : 0 }
}
