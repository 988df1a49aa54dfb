import Foundation
import SpeechScoring

/// PESQ-WB (ITU-T P.862.2) of the demo's recording, scored by the project's scorer wherever
/// `PESQScorer.locate` finds it (the working directory and above, or above the `parley`
/// executable: `.build/release/parley` in a checkout).
enum SpeechScore {
    /// One line: `PESQ-WB 3.912 (…)`, or why there is no score.
    static func describe(reference: String, degraded: String) -> String {
        do throws(PESQScorer.Unavailable) {
            let scorer = try PESQScorer.locate()
            guard let result = try scorer.score([(reference, degraded)]).first else { return "PESQ-WB skipped: no score" }
            return String(format: "PESQ-WB %.3f (bob's recording aligned by %d samples at 16 kHz)", result.score, result.lag)
        } catch {
            return "PESQ-WB skipped: \(error)"
        }
    }
}
