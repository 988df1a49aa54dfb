/// The duration and pause logic of `DTMFDetector`: turns per-window hits into keys reported once.
///
/// A key is a candidate from its first hit window; it is reported when it has gathered
/// `hitsToReport` hit windows, and it ends after `missesToEnd` windows in a row without it (other
/// keys count as misses). Fewer misses in a row are a dropout inside the same tone and are bridged,
/// so a key repeated with too short a pause is reported once.
struct HitTracker: Sendable {
    private var digit: DTMFDigit?
    private var hits = 0
    private var misses = 0
    private var reported = false
    private var firstHitWindowStart: Int64 = 0

    /// Records the verdict on one window (`hit` is the key it shows, if any) and returns a
    /// detection when this window completes a key's minimum duration.
    mutating func record(_ hit: DTMFDigit?, windowStart: Int64, at position: Int64,
                         hitsToReport: Int, missesToEnd: Int, startOffset: Int64) -> DTMFDetection? {
        if let current = digit {
            if hit == current {
                hits += 1
                misses = 0
                return reportIfDue(hitsToReport: hitsToReport, at: position, startOffset: startOffset)
            }
            misses += 1
            if misses < missesToEnd {
                // A candidate never reported gives way to another key at once; a reported key
                // holds until its pause is long enough.
                if let hit, !reported {
                    start(hit, windowStart: windowStart)
                    return reportIfDue(hitsToReport: hitsToReport, at: position, startOffset: startOffset)
                }
                return nil
            }
            digit = nil
        }
        guard let hit else { return nil }
        start(hit, windowStart: windowStart)
        return reportIfDue(hitsToReport: hitsToReport, at: position, startOffset: startOffset)
    }

    private mutating func start(_ key: DTMFDigit, windowStart: Int64) {
        digit = key
        hits = 1
        misses = 0
        reported = false
        firstHitWindowStart = windowStart
    }

    private mutating func reportIfDue(hitsToReport: Int, at position: Int64, startOffset: Int64) -> DTMFDetection? {
        guard let digit, !reported, hits >= hitsToReport else { return nil }
        reported = true
        return DTMFDetection(digit: digit, startSample: firstHitWindowStart + startOffset, reportedAtSample: position)
    }
}
