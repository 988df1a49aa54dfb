/// When to switch Opus in-band FEC on, and how much loss to tell the encoder to expect, from the
/// far end's RTCP reports (the 8-bit "fraction lost" of RFC 3550 §6.4.1). A value: each report
/// goes in, the new state comes out, so tests drive it report by report.
///
/// FEC goes on at the first report of `onThresholdPercent` or more; it goes off after
/// `offAfterReports` consecutive reports under `offThresholdPercent` (hysteresis, so one clean
/// interval in a lossy network does not flap it). The expected loss is rounded into WebRTC's
/// buckets (1, 5, 10, 20 %), which is what libopus sizes its LBRR bitrate by.
public struct OpusFECController: Sendable, Equatable {
    public enum Policy: Sendable, Equatable {
        /// Never use FEC.
        case off
        /// Follow the far end's loss reports.
        case adaptive
        /// Always on, expecting this loss in percent.
        case always(expectedLossPercent: Int)
    }

    public let policy: Policy
    public var onThresholdPercent = 1.0
    public var offThresholdPercent = 0.5
    public var offAfterReports = 3
    /// Whether the encoder should code FEC now.
    public private(set) var isEnabled: Bool
    /// The loss percentage to give the encoder (0 when FEC is off).
    public private(set) var expectedLossPercent: Int
    private var cleanReports = 0

    public init(policy: Policy) {
        self.policy = policy
        switch policy {
        case .off, .adaptive:
            isEnabled = false
            expectedLossPercent = 0
        case .always(let percent):
            isEnabled = true
            expectedLossPercent = min(max(percent, 1), 100)
        }
    }

    /// Loss percent of an RTCP fraction-lost field (a fixed-point fraction of 256).
    public static func lossPercent(fractionLost: UInt8) -> Double { Double(fractionLost) * 100 / 256 }

    /// The expected-loss bucket for a measured loss percentage.
    public static func bucket(lossPercent: Double) -> Int {
        switch lossPercent {
        case 20...: 20
        case 10...: 10
        case 5...: 5
        case 1...: 1
        default: lossPercent > 0 ? 1 : 0
        }
    }

    /// Takes one report; returns true when `isEnabled` or `expectedLossPercent` changed.
    @discardableResult
    public mutating func reportRemoteLoss(fractionLost: UInt8) -> Bool {
        guard policy == .adaptive else { return false }
        let before = (isEnabled, expectedLossPercent)
        let loss = Self.lossPercent(fractionLost: fractionLost)
        if loss >= onThresholdPercent {
            isEnabled = true
            cleanReports = 0
            expectedLossPercent = Self.bucket(lossPercent: loss)
        } else if isEnabled {
            if loss < offThresholdPercent {
                cleanReports += 1
                if cleanReports >= offAfterReports {
                    isEnabled = false
                    expectedLossPercent = 0
                    cleanReports = 0
                }
            } else {
                cleanReports = 0
                expectedLossPercent = 1
            }
        }
        return before != (isEnabled, expectedLossPercent)
    }
}
