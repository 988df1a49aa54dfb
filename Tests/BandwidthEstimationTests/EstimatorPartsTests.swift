import BandwidthEstimation
import Testing

/// The estimator's parts, each on its own: grouping (draft-ietf-rmcat-gcc-02 §5.2), the incoming
/// rate (§5.5 R_hat), the detector (§5.4), the rate controller (§5.5) and when REMB is due.
@Suite struct EstimatorPartsTests {
    static func ticks(_ ms: Double) -> UInt32 { UInt32(truncatingIfNeeded: Int64(ms * 262.144)) & 0xFF_FFFF }

    /// §5.2: packets sent within 5 ms are one group; the next group's deltas are of the groups'
    /// last packets.
    @Test func section5_2PacketsSentWithinBurstTimeAreOneGroup() throws {
        var groups = PacketGroups()
        #expect(groups.add(absSendTime: Self.ticks(0), arrival: 100, size: 1_000) == nil)
        #expect(groups.add(absSendTime: Self.ticks(2), arrival: 101, size: 1_000) == nil)
        #expect(groups.add(absSendTime: Self.ticks(4), arrival: 103, size: 500) == nil)
        // A new group at 33 ms: the first group closes, but there is no group before it.
        #expect(groups.add(absSendTime: Self.ticks(33), arrival: 135, size: 1_000) == nil)
        #expect(groups.add(absSendTime: Self.ticks(34), arrival: 136, size: 1_000) == nil)
        let closed = groups.add(absSendTime: Self.ticks(66), arrival: 170, size: 1_000)
        let delta = try #require(closed)
        #expect(abs(delta.send - 30) < 0.01 && delta.arrival == 33 && delta.size == -500, "\(delta)")
    }

    /// §5.2: a packet sent later than burst_time after the group's first, but arriving within
    /// burst_time of the group's last with less time in transit, queued behind it: same group.
    @Test func section5_2APacketQueuedBehindTheGroupJoinsIt() {
        var groups = PacketGroups()
        _ = groups.add(absSendTime: Self.ticks(0), arrival: 50, size: 1_000)
        _ = groups.add(absSendTime: Self.ticks(33), arrival: 90, size: 1_000)
        // Sent 10 ms after the group's first, arrived 1 ms after its last: a burst.
        #expect(groups.add(absSendTime: Self.ticks(43), arrival: 91, size: 1_000) == nil)
        let delta = groups.add(absSendTime: Self.ticks(66), arrival: 120, size: 1_000)
        #expect(delta.map { abs($0.send - 43) < 0.01 && $0.arrival == 41 && $0.size == 1_000 } == true, "\(String(describing: delta))")
    }

    /// A packet older than the group (reordered, or a retransmission) is ignored; a jump of
    /// seconds restarts grouping instead of making a delta of it.
    @Test func reorderedPacketsAreIgnoredAndJumpsRestart() {
        var groups = PacketGroups()
        _ = groups.add(absSendTime: Self.ticks(0), arrival: 0, size: 1_000)
        _ = groups.add(absSendTime: Self.ticks(33), arrival: 33, size: 1_000)
        #expect(groups.add(absSendTime: Self.ticks(10), arrival: 34, size: 1_000) == nil)
        #expect(groups.add(absSendTime: Self.ticks(66), arrival: 66, size: 1_000) != nil)
        #expect(groups.add(absSendTime: Self.ticks(20_000), arrival: 99, size: 1_000) == nil)
        #expect(groups.add(absSendTime: Self.ticks(100), arrival: 100, size: 1_000) == nil)
        #expect(groups.add(absSendTime: Self.ticks(133), arrival: 133, size: 1_000) == nil)
        #expect(groups.add(absSendTime: Self.ticks(166), arrival: 166, size: 1_000) != nil)
    }

    /// §5.2 across the 64 s wrap of the 24-bit value: the delta is the short way round.
    @Test func absSendTimeDeltasAcrossTheWrap() throws {
        var groups = PacketGroups()
        let top = 64_000.0 - 40
        _ = groups.add(absSendTime: Self.ticks(top), arrival: 0, size: 1_000)
        _ = groups.add(absSendTime: Self.ticks(top + 33), arrival: 33, size: 1_000)
        let closed = groups.add(absSendTime: Self.ticks(top + 66 - 64_000), arrival: 66, size: 1_000)
        let delta = try #require(closed)
        #expect(abs(delta.send - 33) < 0.01 && delta.arrival == 33, "\(delta)")
    }

    /// §5.5 R_hat: bytes over the last second; over less until a second has passed; nothing after
    /// a silence longer than the window.
    @Test func section5_5IncomingRateOverTheLastSecond() {
        var rate = IncomingRate()
        var t = 0.0
        while t < 2_000 {
            rate.add(1_250, now: t)  // 1,250 bytes every 10 ms: 1 Mbit/s
            t += 10
            if t == 500 { #expect(abs((rate.bitrate(now: t) ?? 0) - 1_000_000) < 30_000) }
        }
        #expect(abs((rate.bitrate(now: t) ?? 0) - 1_000_000) < 60_000, "\(rate.bitrate(now: t) ?? 0)")
        #expect(rate.bitrate(now: t + 1_100) == nil)
    }

    /// §5.4: a trend over the threshold for more than 10 ms and two groups, still rising, is
    /// over-use; under its negative, under-use; the threshold follows small trends.
    @Test func section5_4OveruseNeedsASustainedRisingTrend() {
        var trendline = DelayTrendline()
        var detector = DelayOveruseDetector()
        var t = 0.0
        // Flat: normal, and the threshold settles low.
        for _ in 0..<40 {
            t += 33
            trendline.add(PacketGroups.Delta(send: 33, arrival: 33, size: 0), arrival: t)
            #expect(detector.detect(trendline, sendDelta: 33, now: t) == .normal)
        }
        #expect(detector.threshold < 12.5)
        // Each group 10 ms later than the one before: queues grow.
        var signals: [BandwidthUsage] = []
        for _ in 0..<10 {
            t += 43
            trendline.add(PacketGroups.Delta(send: 33, arrival: 43, size: 0), arrival: t)
            signals.append(detector.detect(trendline, sendDelta: 33, now: t))
        }
        #expect(signals.contains(.overusing), "\(signals)")
        // The queue drains: under-use.
        signals = []
        for _ in 0..<20 {
            t += 23
            trendline.add(PacketGroups.Delta(send: 33, arrival: 23, size: 0), arrival: t)
            signals.append(detector.detect(trendline, sendDelta: 33, now: t))
        }
        #expect(signals.last == .underusing, "\(signals)")
    }

    /// §5.5: over-use takes A_hat to 0.85 × R_hat at most every 200 ms and holds; normal increases
    /// it, never past 1.5 × R_hat.
    @Test func section5_5AIMDDecreasesToBetaTimesTheIncomingRateAndIncreasesBounded() throws {
        var control = AIMDRateControl()
        control.update(.normal, incoming: 1_000_000, now: 0)
        #expect(control.bitrate == nil)
        control.update(.normal, incoming: 1_000_000, now: 2_000)
        #expect(control.bitrate == 1_000_000)
        var t = 2_000.0
        while t < 12_000 {
            t += 33
            control.update(.normal, incoming: 1_000_000, now: t)
        }
        #expect(control.bitrate == 1_510_000)
        control.update(.overusing, incoming: 800_000, now: t)
        #expect(control.bitrate == 680_000)
        control.update(.overusing, incoming: 600_000, now: t + 100)
        #expect(control.bitrate == 680_000, "at most one decrease per 200 ms")
        control.update(.overusing, incoming: 600_000, now: t + 250)
        #expect(control.bitrate == 510_000)
        control.update(.underusing, incoming: 600_000, now: t + 300)
        #expect(control.bitrate == 510_000)
        control.update(.normal, incoming: 600_000, now: t + 400)
        control.update(.normal, incoming: 600_000, now: t + 1_400)
        let increased = try #require(control.bitrate)
        #expect(increased > 510_000 && increased < 560_000, "near the capacity just measured, additive: \(increased)")
    }

    /// REMB cadence: the first estimate at once, then once a second.
    @Test func reportsAreDueEverySecondAndAtOnceOnAFallOfMoreThanThreePercent() {
        var path = PathSimulation(sendRate: 800_000, capacity: 5_000_000)
        path.run(for: 6)
        var estimator = path.estimator
        // The next periodic report, within a second of the last one the path made.
        var now = path.now
        while estimator.report(now: now) == nil, now < path.now + 1.1 { now += 0.01 }
        #expect(now < path.now + 1.1)
        #expect(estimator.report(now: now + 0.5) == nil, "reported less than a second ago")
        #expect(estimator.report(now: now + 1.01) != nil)
        #expect(estimator.report(now: now + 1.2) == nil)
        // The bottleneck case (`RemoteBitrateEstimatorTests`) checks the fall goes out at once.
    }
}
