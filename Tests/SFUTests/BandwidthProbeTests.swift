import SFU
import Testing

/// Up-switch probes with padding (`BandwidthProbe`, and `SubscriberBudget` judging its receiver's
/// feedback by it), on a virtual clock.
@Suite struct BandwidthProbeTests {
    @Test func aProbePadsForItsClusterAndPassesWhenTheReportAfterItShowsNoQueue() {
        var probe = BandwidthProbe()
        var started = probe.start(target: 700_000, estimate: 400_000, roundTrip: 0.01, now: 10)
        #expect(started)
        started = probe.start(target: 700_000, estimate: 400_000, roundTrip: 0.01, now: 10.125)
        #expect(!started, "one at a time")
        #expect(probe.paddingRate(forwarding: 250_000, now: 10.25) == 450_000, "the target above what is forwarded")
        #expect(probe.paddingRate(forwarding: 800_000, now: 10.25) == 0)
        #expect(!probe.clusterEnded(now: 10.25) && probe.clusterEnded(now: 10 + BandwidthProbe.cluster))
        #expect(probe.paddingRate(forwarding: 250_000, now: 10 + BandwidthProbe.cluster) == 0, "the cluster is over")
        // Clean feedback decides nothing until the report that answers the cluster's sender report.
        var verdict = probe.feedback(fractionLost: 0, estimate: 420_000, now: 10.25)
        #expect(verdict == nil)
        verdict = probe.feedback(fractionLost: 0.01, estimate: nil, now: 10.625)
        #expect(verdict == nil, "a report without the probe's round trip")
        verdict = probe.feedback(fractionLost: nil, estimate: 430_000, now: 10.75)
        #expect(verdict == nil, "an estimate that did not fall proves nothing")
        verdict = probe.feedback(fractionLost: 0.01, estimate: nil, probeRoundTrip: 0.04, now: 10.875)
        #expect(verdict == .passed(target: 700_000), "within the queue tolerance of the round trip before")
        #expect(!probe.isRunning && probe.passed == 1 && probe.delay == BandwidthProbe.baseDelay)
        started = probe.start(target: 900_000, estimate: nil, roundTrip: nil, now: 11.75)
        #expect(!started, "waits the delay after a probe")
        started = probe.start(target: 900_000, estimate: nil, roundTrip: nil, now: 11.875)
        #expect(started)
        verdict = probe.feedback(fractionLost: nil, estimate: 950_000, now: 12)
        #expect(verdict == .passed(target: 900_000), "an estimate at the target passes at once")
    }

    @Test func lossAFallingEstimateOrAQueueFailsAProbeAndTheWaitDoublesToItsCap() {
        var probe = BandwidthProbe()
        var started = probe.start(target: 700_000, estimate: 400_000, roundTrip: 0.01, now: 0)
        #expect(started)
        var verdict = probe.feedback(fractionLost: nil, estimate: 390_000, now: 0.125)
        #expect(verdict == nil, "a dip within 5 % is noise")
        verdict = probe.feedback(fractionLost: nil, estimate: 330_000, now: 0.25)
        #expect(verdict == .failed, "over-use: the estimate fell")
        #expect(probe.paddingRate(forwarding: 0, now: 0.375) == 0 && !probe.clusterEnded(now: 0.75), "the padding stops with the verdict")
        #expect(probe.delay == 2 && probe.nextAt == 2.25)
        started = probe.start(target: 700_000, estimate: 330_000, roundTrip: 0.01, now: 2.25)
        #expect(started)
        verdict = probe.feedback(fractionLost: 0.05, estimate: nil, now: 2.5)
        #expect(verdict == .failed, "loss under the padding")
        #expect(probe.delay == BandwidthProbe.maxDelay)
        started = probe.start(target: 700_000, estimate: 330_000, roundTrip: 0.01, now: 5.5)
        #expect(started)
        verdict = probe.feedback(fractionLost: 0, estimate: nil, probeRoundTrip: 0.25, now: 6.5)
        #expect(verdict == .failed, "no loss, but the padding built a queue of 240 ms")
        started = probe.start(target: 700_000, estimate: nil, roundTrip: nil, now: 9.5)
        #expect(started)
        verdict = probe.tick(now: 12.25)
        #expect(verdict == nil)
        verdict = probe.tick(now: 9.5 + BandwidthProbe.timeout)
        #expect(verdict == .failed, "no verdict: not proven clean")
        #expect(probe.delay == BandwidthProbe.maxDelay && probe.failed == 4)
        // Congestion outside a probe pushes the next one back.
        probe.congested(now: 20)
        started = probe.start(target: 700_000, estimate: nil, roundTrip: nil, now: 20 + BandwidthProbe.maxDelay - 0.25)
        #expect(!started)
        started = probe.start(target: 700_000, estimate: nil, roundTrip: nil, now: 20 + BandwidthProbe.maxDelay)
        #expect(started)
    }

    /// The budget rises only when the probe passed; what a failed probe's padding caused lowers nothing.
    @Test func theBudgetFollowsTheProbesVerdictAndIgnoresWhatItsPaddingCaused() {
        var budget = SubscriberBudget()
        budget.estimated(800_000, forwarding: 700_000, now: 0)
        budget.reported(fractionLost: 0.3, forwarding: 700_000, now: 1)
        #expect(budget.bitrate == 595_000)
        budget.switched(now: 1.1)
        var started = budget.startProbe(needed: 700_000, roundTrip: 0.02, now: 2.4)
        #expect(!started, "the path settles after a decrease and a switch")
        started = budget.startProbe(needed: 700_000, roundTrip: 0.02, now: 2.7)
        #expect(started)
        #expect(budget.paddingRate(forwarding: 250_000, now: 2.8) == 590_000, "the step × the headroom, above what is forwarded")
        // Heavy loss while probing fails the probe; it does not lower the budget.
        budget.reported(fractionLost: 0.3, forwarding: 250_000, now: 3.0)
        #expect(!budget.prober.isRunning && budget.prober.failed == 1 && budget.bitrate == 595_000)
        // Nor do the reports that still tell of its padding, within the settle time.
        budget.reported(fractionLost: 0.2, forwarding: 250_000, now: 4.0)
        budget.estimated(300_000, forwarding: 250_000, now: 4.1)
        #expect(budget.bitrate == 595_000)
        started = budget.startProbe(needed: 700_000, roundTrip: 0.02, now: 4.9)
        #expect(!started, "the wait doubled")
        started = budget.startProbe(needed: 700_000, roundTrip: 0.02, now: 5.0)
        #expect(started)
        budget.estimated(320_000, forwarding: 250_000, now: 5.3)
        budget.reported(fractionLost: 0, forwarding: 250_000, now: 5.6)
        #expect(budget.bitrate == 595_000 && budget.prober.isRunning, "no verdict before the probe's report")
        budget.reported(fractionLost: 0, forwarding: 250_000, probeRoundTrip: 0.03, now: 6.1)
        #expect(budget.bitrate == 840_000 && budget.prober.passed == 1, "passed: the rate probed")
        // Without a verdict, `tick` ends a probe as failed.
        started = budget.startProbe(needed: 900_000, roundTrip: nil, now: 7.75)
        #expect(started)
        budget.tick(now: 7.75 + BandwidthProbe.timeout)
        #expect(!budget.prober.isRunning && budget.prober.failed == 2 && budget.bitrate == 840_000)
    }
}
