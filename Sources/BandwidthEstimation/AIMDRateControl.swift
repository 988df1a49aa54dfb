#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The rate controller of draft-ietf-rmcat-gcc-02 §5.5: the estimate A_hat, driven by the
/// detector's signal through the states of §5.5's table — over-use: decrease (to `beta` × the
/// incoming rate R_hat, once per `reduceInterval`), then hold; under-use: hold; normal: increase —
/// multiplicatively (`eta` per second) while far from the link's capacity, additively (about a
/// packet per response time) near it, and never past 1.5 × R_hat (§5.5). The capacity is the
/// average of R_hat at decreases, forgotten when R_hat leaves it by 3 σ.
///
/// No estimate until R_hat has been measured for `initialization` (then A_hat = R_hat), or the
/// first over-use. Times in ms, rates in bits per second.
public struct AIMDRateControl: Sendable, Hashable {
    enum State: Sendable, Hashable { case hold, increase, decrease }

    public static let beta = 0.85
    public static let eta = 1.08
    public static let maxIncomingShare = 1.5
    public static let initialization = 2_000.0
    static let reduceInterval = 200.0
    static let responseTime = 300.0
    static let minBitrate = 10_000
    static let capacitySmoothing = 0.05

    /// A_hat, bits per second; nil until initialized.
    public private(set) var bitrate: Int?
    var state = State.hold
    var lastChange = 0.0
    var lastDecrease = -Double.infinity
    var measuredSince: Double?
    var latestIncoming: Int?
    /// The link capacity estimate, kbit/s, and its variance normalized by it.
    var capacity: Double?
    var capacityVariance = 0.4

    public init() {}

    /// The detector's `usage` and R_hat (`incoming`, nil when nothing arrived lately) at `now`.
    public mutating func update(_ usage: BandwidthUsage, incoming: Int?, now: Double) {
        if let incoming { latestIncoming = incoming }
        guard let rate = latestIncoming else { return }
        guard let current = bitrate ?? initialBitrate(usage, incoming: incoming, now: now) else { return }
        switch usage {
        case .overusing: state = .decrease
        case .underusing: state = .hold
        case .normal where state == .hold:
            state = .increase
            lastChange = now
        case .normal where state == .decrease:
            state = .hold
        case .normal: break
        }
        var next = current
        switch state {
        case .hold:
            break
        case .increase:
            let kbps = Double(rate) / 1000
            if let capacity, kbps > capacity + 3 * (capacityVariance * capacity).squareRoot() { self.capacity = nil }
            let elapsed = min(max(now - lastChange, 0), 1_000)
            if capacity != nil {
                next += Int(Double(Self.nearCapacityIncrease(current)) * elapsed / 1_000)
            } else {
                next = Int(Double(current) * pow(Self.eta, elapsed / 1_000))
            }
            lastChange = now
            // §5.5: A_hat < 1.5 · R_hat (an increase never lowers it).
            next = min(next, max(Int((Self.maxIncomingShare * Double(rate)).rounded()) + 10_000, current))
        case .decrease:
            guard now - lastDecrease >= Self.reduceInterval || rate < current / 2 else { break }
            noteCapacity(Double(rate) / 1000)
            next = min(current, Int((Self.beta * Double(rate)).rounded()))
            lastDecrease = now
            lastChange = now
            state = .hold
        }
        bitrate = max(next, Self.minBitrate)
    }

    /// A_hat once R_hat has been measured long enough, or at the first over-use: R_hat itself.
    mutating func initialBitrate(_ usage: BandwidthUsage, incoming: Int?, now: Double) -> Int? {
        guard let incoming else { return nil }
        let since = measuredSince ?? now
        measuredSince = since
        guard usage == .overusing || now - since >= Self.initialization else { return nil }
        lastChange = now
        return incoming
    }

    /// Near capacity, about one packet more per response time (bits per second per second).
    static func nearCapacityIncrease(_ bitrate: Int) -> Int {
        let bitsPerFrame = Double(bitrate) / 30
        let packets = max((bitsPerFrame / (1_200 * 8)).rounded(.up), 1)
        return max(4_000, Int(bitsPerFrame / packets * 1_000 / responseTime))
    }

    /// The capacity's running average and normalized variance, from R_hat at a decrease (kbit/s);
    /// an R_hat 3 σ under it starts it over.
    mutating func noteCapacity(_ kbps: Double) {
        if let average = capacity, kbps < average - 3 * (capacityVariance * average).squareRoot() { capacity = nil }
        let average = capacity.map { (1 - Self.capacitySmoothing) * $0 + Self.capacitySmoothing * kbps } ?? kbps
        capacity = average
        let deviation = average - kbps
        capacityVariance = (1 - Self.capacitySmoothing) * capacityVariance
            + Self.capacitySmoothing * deviation * deviation / max(average, 1)
        capacityVariance = min(max(capacityVariance, 0.4), 2.5)
    }
}
