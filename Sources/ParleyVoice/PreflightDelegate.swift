import CallQuality
import ParleyCore

/// What a preflight test reports (the seed's `TVOPreflightDelegate`). Methods run on the
/// options' delegate queue; exactly one of `didCompleteWith` and `didFailWithError` ends the test.
public protocol PreflightDelegate: AnyObject, Sendable {
    /// The test ended with its report (after `duration`, or early through `stop()` once connected).
    func preflight(_ preflightTest: PreflightTest, didCompleteWith report: PreflightReport)
    /// The test failed: 31005 when the server cannot be reached, the server's token code (20101 …)
    /// when the token is refused, 53405 when media does not connect or fails, 31008 when `stop()`
    /// came before media connected.
    func preflight(_ preflightTest: PreflightTest, didFailWithError error: ParleyError)
    /// The set of active quality warnings changed.
    func preflight(_ preflightTest: PreflightTest, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
                   previousWarnings: Set<QualityWarning>)
    /// Media connected to the echo service; audio starts flowing.
    func preflightDidConnect(_ preflightTest: PreflightTest)
    /// One stats sample, once a second while audio flows.
    func preflight(_ preflightTest: PreflightTest, didReceiveStatsSample statsSample: PreflightStatsSample)
}

extension PreflightDelegate {
    public func preflight(_ preflightTest: PreflightTest, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
                          previousWarnings: Set<QualityWarning>) {}
    public func preflightDidConnect(_ preflightTest: PreflightTest) {}
    public func preflight(_ preflightTest: PreflightTest, didReceiveStatsSample statsSample: PreflightStatsSample) {}
}
