/// When a running composition calls back `composition-progress` (Twilio's Video v1: every 10 %,
/// with `PercentageDone` and `SecondsRemaining`): from ffmpeg's media time written so far against
/// the composition's length, once per 10 % step passed (several steps at once give one callback,
/// at the highest), the time left estimated from the wall time spent at the rate so far. A pure
/// value on time passed in (seconds).
struct CompositionProgress: Sendable, Hashable {
    /// The composition's media length (seconds) and when rendering started.
    let duration: Double
    let startedAt: Double
    /// The last 10 % step called back (0: none yet).
    private(set) var reported = 0

    init(duration: Double, startedAt: Double) {
        self.duration = duration
        self.startedAt = startedAt
    }

    /// ffmpeg wrote `seconds` of media by `now`: the percentage done and seconds remaining to
    /// call back, when a new 10 % step was passed.
    mutating func update(mediaSeconds seconds: Double, now: Double) -> (percentage: Int, secondsRemaining: Int)? {
        guard duration > 0, seconds.isFinite, seconds > 0 else { return nil }
        let percentage = min(Int(seconds / duration * 100), 100)
        let step = percentage / 10 * 10
        guard step > reported else { return nil }
        reported = step
        let elapsed = max(now - startedAt, 0)
        let fraction = Double(percentage) / 100
        let remaining = fraction >= 1 ? 0 : Int((elapsed / fraction * (1 - fraction)).rounded(.up))
        return (percentage, remaining)
    }
}
