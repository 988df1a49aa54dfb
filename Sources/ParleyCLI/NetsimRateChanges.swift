import Foundation
import ParleyNet

/// `--rate-at SECONDS:KBPS` (repeatable): the rate limit of both directions changes to KBPS at
/// SECONDS after the start; 0 lifts it. What a test of bandwidth adaptation needs: a path that
/// narrows and widens again while the media flows.
struct NetsimRateChanges {
    /// (at, kilobits per second or nil for no limit), sorted by time.
    let changes: [(at: Double, kbps: Double?)]

    init(_ parsed: Arguments) throws(UsageError) {
        var changes: [(at: Double, kbps: Double?)] = []
        for text in parsed.all("rate-at") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let kbps = Double(parts[1]), kbps.isFinite, kbps >= 0, kbps <= 100_000_000 else {
                throw UsageError("--rate-at must be SECONDS:KBPS (0 to 100000000 kbit/s; 0 lifts the limit), got \(text)")
            }
            let at = try NetsimSchedule.seconds(String(parts[0]), "rate-at", allowsZero: true)
            changes.append((at, kbps == 0 ? nil : kbps))
        }
        self.changes = changes.sorted { $0.at < $1.at }
    }

    /// Runs the schedule on `relay`, printing a line on stdout at each change; cancel to stop it.
    func start(on relay: NetworkRelay) -> Task<Void, Never> {
        NetsimSchedule.start(changes.map { (at: $0.at, event: $0.kbps) }) { at, kbps in
            relay.setRate(bitsPerSecond: kbps.map { Int64($0 * 1000) })
            return "parley netsim rate \(kbps.map { "\(NetsimSchedule.format($0)) kbit/s" } ?? "unlimited") at \(NetsimSchedule.format(at)) s"
        }
    }
}
