/// How many earlier frames RED should repeat (RFC 2198), from the loss the far end reports (the
/// 8-bit "fraction lost" of RFC 3550 §6.4.1): none on a clean path, more as loss grows. A value:
/// each report goes in, the new distance comes out, so tests drive it report by report.
///
/// A second's report at 50 packets is a noisy measure (at 5 % loss, one second in four shows one
/// loss or none), so the loss is smoothed: it follows a higher report at once and a lower one by a
/// quarter of the difference per report. The distance rises as soon as the smoothed loss calls for
/// more; it falls only after `lowerAfterReports` consecutive reports that call for less (then to
/// the most they called for), so a clean interval in a lossy network does not drop the protection.
public struct REDDistanceController: Sendable, Equatable {
    /// Loss in percent from which distance 1, 2, 3 is chosen. Two lost packets in a row at 3 %
    /// random loss happen once a minute at 50 packets a second; three at 10 % about as often.
    public static let thresholdsPercent: [Double] = [1, 3, 10]

    public let maxDistance: Int
    public var lowerAfterReports = 3
    /// The distance to use now.
    public private(set) var distance: Int
    /// The smoothed loss, in percent.
    public private(set) var lossPercent = 0.0
    private var lowerReports = 0
    private var highestWhileLowering = 0

    /// - Parameter initialDistance: before the first report (the path is not known yet).
    public init(initialDistance: Int = 1, maxDistance: Int = REDEncoder.maxDistance) {
        self.maxDistance = min(max(maxDistance, 0), REDEncoder.maxDistance)
        distance = min(max(initialDistance, 0), self.maxDistance)
    }

    /// The distance a loss percentage calls for.
    public func distance(forLossPercent loss: Double) -> Int {
        min(Self.thresholdsPercent.filter { loss >= $0 }.count, maxDistance)
    }

    /// Takes one report; returns true when `distance` changed.
    @discardableResult
    public mutating func reportRemoteLoss(fractionLost: UInt8) -> Bool {
        let reported = Double(fractionLost) * 100 / 256
        lossPercent = reported >= lossPercent ? reported : lossPercent + (reported - lossPercent) / 4
        let wanted = distance(forLossPercent: lossPercent)
        let before = distance
        if wanted >= distance {
            distance = wanted
            lowerReports = 0
            highestWhileLowering = 0
        } else {
            lowerReports += 1
            highestWhileLowering = max(highestWhileLowering, wanted)
            if lowerReports >= lowerAfterReports {
                distance = highestWhileLowering
                lowerReports = 0
                highestWhileLowering = 0
            }
        }
        return distance != before
    }
}
