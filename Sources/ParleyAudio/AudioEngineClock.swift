import ParleyCore

/// The monotonic clock an `AudioEngine` reads when the device pulls playout audio and when a
/// packet arrives without a time: microseconds, any origin, never going back. Tests give the
/// engine a virtual clock they advance themselves.
public protocol AudioEngineClock: Sendable {
    /// Microseconds since the clock's origin.
    func microseconds() -> Int64
}

/// The system's monotonic clock (`SystemClock`), counted from when this value was made.
public struct MonotonicAudioEngineClock: AudioEngineClock {
    private let origin: MonotonicInstant

    public init() { origin = SystemClock.now }

    public func microseconds() -> Int64 {
        (SystemClock.now.nanoseconds - origin.nanoseconds) / 1_000
    }
}
