import BandwidthEstimation
import NetworkConditioner
import Testing

/// The delay-based estimator (draft-ietf-rmcat-gcc-02 §5) on a virtual path (`PathSimulation`):
/// below capacity it rises toward and stays near what is sent; when a bottleneck's queue grows it
/// falls under the bottleneck's rate within about a second; it recovers when the bottleneck lifts.
@Suite struct RemoteBitrateEstimatorTests {
    /// §5.5: with no over-use the estimate grows, bounded by 1.5 × the incoming rate; first
    /// reported once the rate has been measured for the initialization time.
    @Test func section5_5SteadyLinkBelowCapacityRisesTowardTheSentRateAndStaysNearIt() {
        var path = PathSimulation(sendRate: 500_000, capacity: 2_000_000)
        path.run(for: 1.5)
        #expect(path.reports.isEmpty, "no estimate before the incoming rate was measured: \(path.reports)")
        path.run(for: 20)
        let first = try? #require(path.reports.first)
        #expect((first?.time ?? 0) >= 2 && (first?.time ?? 99) < 2.5, "first report \(String(describing: first))")
        #expect(path.overuses == 0)
        let last = path.reports.last?.bitrate ?? 0
        #expect(last >= 600_000 && last <= 770_000, "estimate \(last) after 20 s at 500 kbit/s")
        // Once a second, and never down on a clean path.
        let times = path.reports.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.1 - $0.0 >= 0.99 && $0.1 - $0.0 < 1.1 }, "\(times)")
        #expect(zip(path.reports, path.reports.dropFirst()).allSatisfy { $0.1.bitrate >= $0.0.bitrate })
    }

    /// §5.4 and §5.5: the bottleneck drops under the sent rate, its queue grows, the detector
    /// signals over-use and the estimate falls to 0.85 × the incoming rate, under the bottleneck's,
    /// within about a second; reported at once.
    @Test func section5_4BottleneckQueueGrowthDropsTheEstimateBelowTheBottleneckWithinASecond() throws {
        var path = PathSimulation(sendRate: 1_000_000, capacity: 3_000_000)
        path.run(for: 10)
        let before = try #require(path.estimator.bitrate)
        #expect(before > 1_000_000)
        path.capacity = 400_000
        let limitAt = path.now
        path.run(for: 3)
        let below = try #require(path.firstReport(after: limitAt, below: 400_000), "reports \(path.reports.suffix(8))")
        #expect(below - limitAt < 1.3, "under the bottleneck \(below - limitAt) s after it")
        // The first decrease goes out within a few hundred ms, not at the next periodic report.
        let fell = try #require(path.firstReport(after: limitAt, below: before * 97 / 100))
        #expect(fell - limitAt < 0.5, "first decrease \(fell - limitAt) s after the limit")
        #expect(path.overuses >= 1)
        #expect((path.estimator.bitrate ?? .max) > 150_000, "no collapse: \(path.estimator.bitrate ?? 0)")
    }

    /// §5.5: once the bottleneck lifts, the estimate climbs back past what is sent.
    @Test func section5_5RecoveryAfterTheBottleneckLifts() throws {
        var path = PathSimulation(sendRate: 1_000_000, capacity: 3_000_000)
        path.run(for: 8)
        path.capacity = 400_000
        path.run(for: 4)
        // Under the bottleneck once its queue grew (with the queue full and the sender deaf to
        // REMB, the delay stops growing and the estimate creeps up again, under 1.5 × R_hat).
        #expect(path.firstReport(after: 8, below: 400_000) != nil, "\(path.reports.suffix(6))")
        #expect((path.estimator.bitrate ?? .max) <= 620_000)
        path.capacity = 3_000_000
        let liftAt = path.now
        path.run(for: 25)
        let back = try #require(path.reports.first { $0.time > liftAt && $0.bitrate >= 1_000_000 }, "\(path.reports.suffix(5))")
        #expect(back.time - liftAt < 20, "back to the sent rate \(back.time - liftAt) s after the lift")
        #expect((path.estimator.bitrate ?? 0) <= 1_510_000 + 10_000)
    }

    /// §5.4: jitter well under the threshold (a loaded host's scheduling) is not over-use.
    @Test func section5_4JitterAloneIsNotOveruse() {
        var estimator = RemoteBitrateEstimator()
        var random = SeededGenerator(seed: 7)
        var t = 0.0
        var last = 0.0
        for frame in 0..<1_800 {
            let send = Double(frame) / 30
            for packet in 0..<3 {
                // 0–8 ms of extra delay per frame, never going back in arrival.
                let arrival = max(send + 0.02 + Double(random.next() % 8_000) / 1_000_000 + Double(packet) * 0.0001, last)
                last = arrival
                estimator.received(absSendTime: UInt32(truncatingIfNeeded: Int64(send * 262_144)) & 0xFF_FFFF, size: 1_200,
                                   arrival: arrival)
                #expect(estimator.usage != .overusing, "over-use at \(arrival) s")
            }
            t = send
        }
        #expect((estimator.bitrate ?? 0) > 800_000, "estimate \(estimator.bitrate ?? 0) at \(t) s")
    }

    /// §5.2 with the 24-bit abs-send-time wrapping every 64 s: a steady path across the wrap is
    /// as steady as any other.
    @Test func absSendTimeWrapAroundIsSeamless() {
        var path = PathSimulation(sendRate: 500_000, capacity: 2_000_000)
        path.sendClockOffset = 0xFF_FFFF - 262_144 * 5  // wraps 5 s in
        path.run(for: 12)
        #expect(path.overuses == 0)
        let last = path.reports.last?.bitrate ?? 0
        #expect(last >= 550_000 && last <= 770_000, "estimate \(last)")
    }

    /// Reordered, duplicated and garbage timestamps (and garbage arrival times) neither trap nor
    /// send the estimate anywhere a path could not justify.
    @Test func reorderedDuplicateAndGarbageTimestampsNeitherCrashNorExplodeTheEstimate() {
        var estimator = RemoteBitrateEstimator()
        var random = SeededGenerator(seed: 42)
        var arrival = 0.0
        for frame in 0..<900 {
            let send = Double(frame) / 30
            arrival = max(arrival, send + 0.02)
            let stamp = UInt32(truncatingIfNeeded: Int64(send * 262_144)) & 0xFF_FFFF
            for packet in 0..<3 {
                arrival += 0.0002
                switch random.next() % 10 {
                case 0: estimator.received(absSendTime: UInt32(truncatingIfNeeded: random.next()), size: 1_200, arrival: arrival)
                case 1:  // a duplicate
                    estimator.received(absSendTime: stamp, size: 1_200, arrival: arrival)
                    estimator.received(absSendTime: stamp, size: 1_200, arrival: arrival)
                case 2:  // an older packet (reordered, or a retransmission keeping its first send time)
                    estimator.received(absSendTime: stamp &- 262_144 / 10 * UInt32(packet + 1), size: 1_200, arrival: arrival)
                default:
                    estimator.received(absSendTime: stamp, size: 1_200, arrival: arrival)
                }
            }
            _ = estimator.report(now: arrival)
        }
        #expect((estimator.bitrate ?? 0) <= 2_000_000, "estimate \(estimator.bitrate ?? 0) for about 1 Mbit/s")
        for garbage in [Double.nan, .infinity, -.infinity, -1e300, 1e300, 0, -5] {
            estimator.received(absSendTime: 0xFF_FFFF, size: 1_200, arrival: garbage)
            estimator.received(absSendTime: 0, size: Int.max / 2, arrival: arrival)
            estimator.received(absSendTime: 0, size: -1, arrival: arrival)
            _ = estimator.report(now: garbage)
        }
        // Clean packets again: an estimate, bounded by what arrives.
        for frame in 900..<1_200 {
            let send = Double(frame) / 30
            arrival = max(arrival, send + 0.02)
            for _ in 0..<3 {
                arrival += 0.0002
                estimator.received(absSendTime: UInt32(truncatingIfNeeded: Int64(send * 262_144)) & 0xFF_FFFF, size: 1_200,
                                   arrival: arrival)
            }
        }
        let bitrate = estimator.bitrate ?? 0
        #expect(bitrate >= 10_000 && bitrate <= 2_000_000, "estimate \(bitrate)")
    }
}
