extension Duration {
    /// The duration in milliseconds, fractional.
    public var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }

    /// The duration in seconds, fractional (for the pure state machines that take time as seconds).
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole nanoseconds, clamped to `Int64`'s range.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflowSum) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowSum ? (seconds < 0 ? .min : .max) : sum
    }
}
