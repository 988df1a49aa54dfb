/// The monotonic clock an `AudioEngine` reads when the device pulls playout audio and when a
/// packet arrives without a time: microseconds, any origin, never going back. Tests give the
/// engine a virtual clock they advance themselves.
public protocol AudioEngineClock: Sendable {
    /// Microseconds since the clock's origin.
    func microseconds() -> Int64
}

/// The system's monotonic clock (`ContinuousClock`), counted from when this value was made.
public struct MonotonicAudioEngineClock: AudioEngineClock {
    private let origin: ContinuousClock.Instant

    public init() { origin = .now }

    public func microseconds() -> Int64 {
        let elapsed = origin.duration(to: .now).components
        return elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
    }
}
