import SFU
import Testing

/// A subscriber's video budget from its receiver's reports and estimates, and how the allocator
/// shares it among its subscriptions (Twilio's bandwidth profile), on a virtual clock.
@Suite struct VideoAllocationTests {
    @Test func lossAndAFallingEstimateLowerTheBudgetAndACleanPathProbesUp() {
        var budget = SubscriberBudget()
        budget.reported(fractionLost: 0.01, forwarding: 2_000_000, now: 1)
        #expect(budget.bitrate == nil, "unlimited until the path shows a limit")
        budget.reported(fractionLost: 0.4, forwarding: 2_000_000, now: 2)
        #expect(budget.bitrate == 1_600_000, "what was forwarded × (1 − loss / 2)")
        budget.reported(fractionLost: 0.4, forwarding: 1_600_000, now: 3)
        #expect(budget.bitrate == 1_600_000, "within the settle time: what was queued")
        // A rising estimate lags a step up: never a decrease. A falling one below what we send is.
        budget.estimated(400_000, forwarding: 1_600_000, now: 4)
        #expect(budget.bitrate == 1_600_000, "a first estimate says nothing about a trend")
        budget.estimated(500_000, forwarding: 1_600_000, now: 4.5)
        #expect(budget.bitrate == 1_600_000)
        budget.estimated(1_450_000, forwarding: 1_600_000, now: 4.55)
        #expect(budget.bitrate == 1_600_000, "a small dip near what we send is noise")
        budget.switched(now: 4.6)
        budget.estimated(450_000, forwarding: 1_600_000, now: 4.7)
        #expect(budget.bitrate == 1_600_000, "a layer switch's key frame: the estimate dips for a moment")
        budget.estimated(1_400_000, forwarding: 1_600_000, now: 5.2)
        budget.estimated(450_000, forwarding: 1_600_000, now: 6.5)
        #expect(budget.bitrate == 450_000)
        // Clean: a probe waits the probe delay since the last change.
        var probed = budget.probe(needed: 700_000, now: 9.4)
        #expect(!probed)
        probed = budget.probe(needed: 700_000, now: 9.5)
        #expect(probed && budget.bitrate == 700_000)
        // Loss right after the probe: back down, and the next probe waits twice as long.
        budget.reported(fractionLost: 0.2, forwarding: 700_000, now: 10.5)
        #expect(budget.bitrate == 630_000 && budget.probeDelay == 6)
        probed = budget.probe(needed: 700_000, now: 16.4)
        #expect(!probed)
        probed = budget.probe(needed: 700_000, now: 16.5)
        #expect(probed)
        // Moderate loss since the last change: the next probe is skipped (and waits again).
        budget.reported(fractionLost: 0.05, forwarding: 700_000, now: 17.5)
        probed = budget.probe(needed: 900_000, now: 22.6)
        #expect(!probed && budget.bitrate == 700_000)
        probed = budget.probe(needed: 900_000, now: 28.7)
        #expect(probed)
        budget.tick(now: 31.5)
        #expect(budget.probeDelay == SubscriberBudget.baseProbeDelay, "stable for 10 s: the base delay again")
        budget.reported(fractionLost: 0.9, forwarding: 10_000, now: 40)
        #expect(budget.bitrate == SubscriberBudget.floor)
    }

    /// Two simulcast tracks (150 k, 500 k, 1.7 M) and one without simulcast (300 k).
    static func allocator() -> VideoAllocator {
        var allocator = VideoAllocator()
        allocator.bitrates = [150_000, 500_000, 1_700_000, 150_000, 500_000, 1_700_000, 300_000]
        allocator.heights = [180, 360, 720, 180, 360, 720, 480]
        return allocator
    }
    static func demands(_ priorities: [TrackPriority], off: [Bool] = [false, false, false]) -> [VideoDemand] {
        [VideoDemand(priority: priorities[0], layers: 0..<3, isOff: off[0]),
         VideoDemand(priority: priorities[1], layers: 3..<6, isOff: off[1]),
         VideoDemand(priority: priorities[2], layers: 6..<7, isOff: off[2])]
    }

    /// An estimate under what we send that does not fall lowers nothing: it lags a step up.
    @Test func aLowEstimateThatDoesNotFallIsNoOveruse() {
        var budget = SubscriberBudget()
        budget.reported(fractionLost: 0.4, forwarding: 500_000, now: 0)
        #expect(budget.bitrate == 400_000)
        _ = budget.probe(needed: 600_000, now: 3)
        for (i, estimate) in [250_000, 250_000, 280_000, 310_000, 345_000, 380_000, 420_000, 460_000].enumerated() {
            budget.estimated(estimate, forwarding: 600_000, now: 5 + Double(i))
        }
        #expect(budget.bitrate == 600_000, "under what we send for 7 s, never falling")
    }

    @Test func gridSharesAlikeAndSwitchesOffTheLowestPriorityFirst() {
        var allocator = Self.allocator()
        let profile = BandwidthProfile()
        allocator.allocate(Self.demands([.standard, .standard, .standard]), budget: nil, profile: profile)
        #expect(allocator.allocations == [.layer(2), .layer(2), .layer(0)] && allocator.used == 3_700_000)
        #expect(allocator.nextStep == nil, "everything at its largest")
        // 1.5 Mbit/s: each its smallest (600 k), then one step each in turn (+350 k, +350 k).
        allocator.allocate(Self.demands([.standard, .standard, .standard]), budget: 1_500_000, profile: profile)
        #expect(allocator.allocations == [.layer(1), .layer(1), .layer(0)] && allocator.used == 1_300_000)
        #expect(allocator.nextStep == 2_500_000, "the next step: 1.2 M more for a largest layer")
        // 400 k: the high-priority track first, then each that still fits (the low one's smallest
        // layer, not the standard one's 300 k).
        allocator.allocate(Self.demands([.low, .high, .standard]), budget: 400_000, profile: profile)
        #expect(allocator.allocations == [.layer(0), .layer(0), .off] && allocator.used == 300_000)
        #expect(allocator.nextStep == 600_000, "the cheapest improvement: the standard track on")
        allocator.allocate(Self.demands([.low, .high, .standard]), budget: 200_000, profile: profile)
        #expect(allocator.allocations == [.off, .layer(0), .off])
        // Coming back on needs the margin: 150 k × 1.2.
        allocator.allocate(Self.demands([.low, .high, .standard], off: [true, false, true]), budget: 320_000, profile: profile)
        #expect(allocator.allocations == [.off, .layer(0), .off])
        allocator.allocate(Self.demands([.low, .high, .standard], off: [true, false, true]), budget: 330_000, profile: profile)
        #expect(allocator.allocations == [.layer(0), .layer(0), .off])
        // Switch-off disabled: everyone keeps its smallest layer however little fits.
        var never = profile
        never.trackSwitchOffMode = .disabled
        allocator.allocate(Self.demands([.low, .high, .standard]), budget: 100_000, profile: never)
        #expect(allocator.allocations == [.layer(0), .layer(0), .layer(0)])
    }

    /// `predicted` switches off on the budget alone, `detected` only once the path showed
    /// congestion (loss or a falling estimate, for `congestionMemory`), `disabled` never.
    @Test func detectedSwitchOffWaitsForCongestionPredictedDoesNot() {
        var allocator = Self.allocator()
        let tracks: [TrackPriority] = [.low, .high, .standard]
        var detected = BandwidthProfile(trackSwitchOffMode: .detected)
        allocator.allocate(Self.demands(tracks), budget: 200_000, profile: detected, congested: false)
        #expect(allocator.allocations == [.layer(0), .layer(0), .layer(0)], "no congestion seen: nothing off")
        allocator.allocate(Self.demands(tracks), budget: 200_000, profile: detected, congested: true)
        #expect(allocator.allocations == [.off, .layer(0), .off])
        // Off once, a track stays off until its smallest layer fits with the margin, congested or not.
        allocator.allocate(Self.demands(tracks, off: [true, false, true]), budget: 320_000, profile: detected, congested: false)
        #expect(allocator.allocations == [.off, .layer(0), .off])
        allocator.allocate(Self.demands(tracks, off: [true, false, true]), budget: 330_000, profile: detected, congested: false)
        #expect(allocator.allocations == [.layer(0), .layer(0), .off])
        // A subscriber's cap alone is no congestion to `detected`; `predicted` switches off under it.
        detected.maxSubscriptionBitrate = 200_000
        allocator.allocate(Self.demands(tracks), budget: nil, profile: detected)
        #expect(allocator.allocations == [.layer(0), .layer(0), .layer(0)])
        allocator.allocate(Self.demands(tracks), budget: nil, profile: BandwidthProfile(maxSubscriptionBitrate: 200_000))
        #expect(allocator.allocations == [.off, .layer(0), .off])
        for congested in [false, true] {
            allocator.allocate(Self.demands(tracks), budget: 200_000, profile: BandwidthProfile(), congested: congested)
            #expect(allocator.allocations == [.off, .layer(0), .off], "predicted: on the estimate alone")
            allocator.allocate(Self.demands(tracks), budget: 100_000, profile: BandwidthProfile(trackSwitchOffMode: .disabled),
                               congested: congested)
            #expect(allocator.allocations == [.layer(0), .layer(0), .layer(0)], "disabled: never")
        }
        // The budget says when the path showed congestion: loss, or an estimate falling under what we send.
        var budget = SubscriberBudget()
        budget.reported(fractionLost: 0.01, forwarding: 600_000, now: 1)
        #expect(!budget.congested(now: 1), "clean reports")
        budget.reported(fractionLost: 0.3, forwarding: 600_000, now: 2)
        #expect(budget.congested(now: 2) && budget.congested(now: 2 + SubscriberBudget.congestionMemory))
        #expect(!budget.congested(now: 5.1), "3 s later it is history")
        budget.estimated(600_000, forwarding: 500_000, now: 10)
        budget.estimated(300_000, forwarding: 500_000, now: 11)
        #expect(budget.congested(now: 11.5), "a falling REMB")
    }

    @Test func collaborationAndPresentationFavourHigherPriorities() {
        var allocator = Self.allocator()
        var profile = BandwidthProfile(mode: .collaboration)
        // 2.5 M: the high track takes its largest (1.7 M) before the standard one steps up.
        allocator.allocate(Self.demands([.standard, .high, .low]), budget: 2_500_000, profile: profile)
        #expect(allocator.allocations == [.layer(1), .layer(2), .layer(0)] && allocator.used == 2_500_000)
        profile.mode = .presentation
        allocator.allocate(Self.demands([.standard, .high, .low]), budget: 3_000_000, profile: profile)
        #expect(allocator.allocations == [.layer(0), .layer(2), .layer(0)], "only the highest tier steps up")
        #expect(allocator.nextStep == nil)
        // The subscriber's cap bounds the budget, and no probe goes past it.
        profile = BandwidthProfile(maxSubscriptionBitrate: 1_000_000)
        allocator.allocate(Self.demands([.standard, .standard, .standard]), budget: nil, profile: profile)
        #expect(allocator.allocations == [.layer(1), .layer(0), .layer(0)] && allocator.used == 950_000)
        #expect(allocator.nextStep == nil, "1.3 M for the next step is over the cap")
    }

    @Test func renderDimensionsCapTheLayerAndTheDominantSpeakerIsRaised() {
        var allocator = Self.allocator()
        let profile = BandwidthProfile(dominantSpeakerPriority: .high,
                                       renderDimensions: [.low: .init(width: 320, height: 180),
                                                          .standard: .init(width: 640, height: 360)])
        allocator.allocate(Self.demands([.low, .standard, .high]), budget: nil, profile: profile)
        #expect(allocator.allocations == [.layer(0), .layer(1), .layer(0)])
        #expect(profile.effectivePriority(.low, dominantSpeaker: true) == .high)
        #expect(profile.effectivePriority(.low, dominantSpeaker: false) == .low)
        let high = profile.effectivePriority(.standard, dominantSpeaker: true)
        allocator.allocate(Self.demands([.low, high, .high]), budget: nil, profile: profile)
        #expect(allocator.allocations == [.layer(0), .layer(2), .layer(0)], "no render cap for high")
    }
}

extension VideoAllocationTests {
    /// A layer a subscription has is kept while the budget falls short of it by up to 15 %
    /// (measured bitrates wander); a step beyond what it has must fit.
    @Test func aLayerHeldIsKeptWithinTheMarginAndNewStepsMustFit() {
        var allocator = Self.allocator()
        let profile = BandwidthProfile()
        func demands(current: [Int?]) -> [VideoDemand] {
            [VideoDemand(priority: .standard, layers: 0..<3, isOff: false, current: current[0]),
             VideoDemand(priority: .standard, layers: 3..<6, isOff: current[1] == nil, current: current[1])]
        }
        // 600 k: 150 + 500 = 650 k over budget, but within 15 % of it for the layer held.
        allocator.allocate(demands(current: [1, 0]), budget: 600_000, profile: profile)
        #expect(allocator.allocations.prefix(2) == [.layer(1), .layer(0)])
        allocator.allocate(demands(current: [0, 0]), budget: 600_000, profile: profile)
        #expect(allocator.allocations.prefix(2) == [.layer(0), .layer(0)], "a step up must fit")
        // 530 k: 650 k is past the margin: down a layer.
        allocator.allocate(demands(current: [1, 0]), budget: 530_000, profile: profile)
        #expect(allocator.allocations.prefix(2) == [.layer(0), .layer(0)])
        // A track on keeps its smallest layer within the margin; one off needs 1.2 x to return.
        allocator.allocate(demands(current: [0, 0]), budget: 280_000, profile: profile)
        #expect(allocator.allocations.prefix(2) == [.layer(0), .layer(0)])
        allocator.allocate(demands(current: [0, nil]), budget: 280_000, profile: profile)
        #expect(allocator.allocations.prefix(2) == [.layer(0), .off])
    }
}
