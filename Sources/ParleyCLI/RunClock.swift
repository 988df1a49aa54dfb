import ParleyCore

/// The time a call command may take. `--duration` bounds the whole run, the wait before the call
/// connects included; `--connect-timeout` bounds only that wait (for `parley listen`, the wait
/// for an invite), and never reaches past `--duration`.
struct RunClock: Sendable {
    let started = ContinuousClock.now
    let duration: Duration?
    let connectTimeout: Duration?

    init(_ parsed: Arguments, defaultDuration: Duration?) throws(UsageError) {
        duration = try parsed.seconds("duration") ?? defaultDuration
        connectTimeout = try parsed.seconds("connect-timeout")
    }

    var elapsed: Duration { ContinuousClock.now - started }

    /// When the run ends, nil for no bound.
    var deadline: ContinuousClock.Instant? { duration.map { started + $0 } }

    /// When waiting to connect gives up: the sooner of the two bounds.
    var connectDeadline: ContinuousClock.Instant? {
        let connect = connectTimeout.map { started + $0 }
        guard let connect, let deadline else { return connect ?? deadline }
        return min(connect, deadline)
    }

    /// `instant`, or the run's end if that comes first.
    func capped(_ instant: ContinuousClock.Instant) -> ContinuousClock.Instant {
        deadline.map { min($0, instant) } ?? instant
    }

    /// `--duration 10 s`, for messages.
    var limitDescription: String { duration.map { "--duration \(Self.format($0))" } ?? "the run" }

    /// The bound that ends waiting to connect, for messages.
    var connectLimitDescription: String {
        if let connectTimeout, duration.map({ connectTimeout <= $0 }) ?? true {
            return "--connect-timeout \(Self.format(connectTimeout))"
        }
        return limitDescription
    }

    private static func format(_ duration: Duration) -> String {
        let seconds = duration.milliseconds / 1000
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
