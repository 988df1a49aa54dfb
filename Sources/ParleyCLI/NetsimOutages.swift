import Foundation
import ParleyNet

/// `parley netsim --outage-at SECONDS --outage-for SECONDS`: when to black the network out, in
/// seconds from the relay's start. `--outage-at` may repeat; `--outage-for` is given once (every
/// outage that long) or once per `--outage-at`, in the same order. Overlapping outages merge.
struct NetsimOutages {
    /// (start, end) in seconds from the start, sorted, not overlapping.
    let windows: [(start: Double, end: Double)]

    init(_ parsed: Arguments) throws(UsageError) {
        let starts = try parsed.all("outage-at").map { text throws(UsageError) in try NetsimSchedule.seconds(text, "outage-at", allowsZero: true) }
        let lengths = try parsed.all("outage-for").map { text throws(UsageError) in try NetsimSchedule.seconds(text, "outage-for", allowsZero: false) }
        guard starts.isEmpty == lengths.isEmpty else {
            throw UsageError("--outage-at and --outage-for go together")
        }
        guard lengths.count == 1 || lengths.count == starts.count else {
            throw UsageError("--outage-for is given once, or once per --outage-at (\(starts.count)), not \(lengths.count) times")
        }
        var merged: [(start: Double, end: Double)] = []
        let windows = starts.indices.map { (start: starts[$0], end: starts[$0] + lengths[lengths.count == 1 ? 0 : $0]) }
        for window in windows.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, window.start <= last.end {
                merged[merged.count - 1].end = max(last.end, window.end)
            } else {
                merged.append(window)
            }
        }
        self.windows = merged
    }

    /// Runs the schedule on `relay`, printing a line on stdout as each outage begins and ends;
    /// cancel the task to stop it (an outage in progress then stays, which no longer matters).
    func start(on relay: NetworkRelay) -> Task<Void, Never> {
        // Each window as two events: its start with its length, its end with 0.
        let events = windows.flatMap { [(at: $0.start, event: $0.end - $0.start), (at: $0.end, event: 0.0)] }
        return NetsimSchedule.start(events) { at, length in
            relay.setOutage(length > 0)
            let f = NetsimSchedule.format
            return length > 0 ? "parley netsim outage begins at \(f(at)) s for \(f(length)) s" : "parley netsim outage ends at \(f(at)) s"
        }
    }
}
