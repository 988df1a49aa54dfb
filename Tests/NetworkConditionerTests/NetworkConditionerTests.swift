import NetworkConditioner
import Testing

/// Submits `count` packets of `length` bytes every `interval` µs, then drains everything; returns
/// the deliveries in delivery order.
private func run(_ path: inout NetworkConditioner<Int>, count: Int, interval: Int64 = 20_000, length: Int = 100)
    -> [ConditionedDelivery<Int>] {
    var out: [ConditionedDelivery<Int>] = []
    out.reserveCapacity(count + count / 10)
    for i in 0..<count {
        let now = Int64(i) * interval
        path.submit(i, length: length, at: now)
        while let d = path.dequeueDue(at: now) { out.append(d) }
    }
    while let next = path.nextDeliveryTime, let d = path.dequeueDue(at: next) { out.append(d) }
    return out
}

@Suite struct NetworkConditionerTests {
    @Test func deliversAtTheDelayOnTheVirtualClock() throws {
        var path = NetworkConditioner<String>(conditions: NetworkConditions(delayMicroseconds: 10_000), seed: 1)
        #expect(path.submit("a", length: 10, at: 1_000) == 1)
        #expect(path.nextDeliveryTime == 11_000)
        #expect(path.dequeueDue(at: 10_999) == nil)
        let due = path.dequeueDue(at: 11_000)
        let d = try #require(due)
        #expect(d.payload == "a" && d.delay == 10_000 && d.sequence == 0)
        #expect(path.nextDeliveryTime == nil && path.pendingCount == 0)
    }

    @Test func randomLossRateOverAHundredThousandPackets() {
        var path = NetworkConditioner<Int>(conditions: NetworkConditions(loss: .random(percent: 5)), seed: 42)
        let out = run(&path, count: 100_000)
        let rate = Double(path.statistics.droppedByLoss) / 100_000
        #expect(abs(rate - 0.05) < 0.003, "loss \(rate)")
        #expect(out.count == 100_000 - path.statistics.droppedByLoss)
        #expect(path.statistics.delivered == out.count)
    }

    @Test func gilbertElliottMatchesAverageLossAndBurstLength() {
        let model = GilbertElliott(averageLossPercent: 10, meanBurstLength: 4)
        #expect(abs(model.r - 0.25) < 1e-12 && abs(model.averageLoss - 0.10) < 1e-12)
        var path = NetworkConditioner<Int>(conditions: NetworkConditions(loss: .gilbertElliott(model)), seed: 7)
        let out = run(&path, count: 100_000)
        // Bursts: runs of consecutive missing sequence numbers.
        var bursts = 0, lost = 0, expected = 0
        for d in out {
            let gap = d.payload - expected
            if gap > 0 { bursts += 1; lost += gap }
            expected = d.payload + 1
        }
        if expected < 100_000 { bursts += 1; lost += 100_000 - expected }
        let meanBurst = Double(lost) / Double(bursts)
        let rate = Double(lost) / 100_000
        #expect(lost == path.statistics.droppedByLoss)
        #expect(abs(rate - 0.10) < 0.01, "loss \(rate)")
        #expect(abs(meanBurst - 4) < 0.3, "mean burst \(meanBurst)")
        // Random loss of the same average has bursts of about 1 / (1 − 0.1) ≈ 1.11.
        #expect(GilbertElliott(p: 0.1, r: 0.3, lossInBad: 0.5, lossInGood: 0.01).averageLoss == 0.25 * 0.5 + 0.75 * 0.01)
    }

    @Test func sameSeedSameSchedule() {
        let conditions = NetworkConditions(loss: .gilbertElliott(GilbertElliott(averageLossPercent: 5, meanBurstLength: 2)),
                                           delayMicroseconds: 30_000, jitterMicroseconds: 25_000, allowsReordering: true,
                                           reorderPercent: 2, duplicatePercent: 1, rateBitsPerSecond: 200_000)
        func schedule(_ seed: UInt64) -> [[Int64]] {
            var path = NetworkConditioner<Int>(conditions: conditions, seed: seed)
            return run(&path, count: 5_000).map { [Int64($0.payload), $0.time] }
        }
        let a = schedule(99), b = schedule(99), c = schedule(100)
        #expect(a == b)
        #expect(a != c)
        #expect(a.count > 4_500)
    }

    @Test func jitterStaysWithinItsPeakToPeakBounds() {
        for allowsReordering in [true, false] {
            let conditions = NetworkConditions(delayMicroseconds: 40_000, jitterMicroseconds: 30_000, allowsReordering: allowsReordering)
            var path = NetworkConditioner<Int>(conditions: conditions, seed: 3)
            let out = run(&path, count: 20_000)
            let delays = out.map(\.delay)
            #expect(delays.min()! >= 40_000 && delays.max()! <= 70_000)
            #expect(delays.min()! < 40_500 && delays.max()! > 69_500)
            if allowsReordering {
                // Uniform on [40, 70] ms: mean 55 ms; packets 20 ms apart overtake each other.
                #expect(abs(path.statistics.meanDelayMicroseconds - 55_000) < 500)
                #expect(path.statistics.deliveredOutOfOrder > 1_000)
            } else {
                #expect(path.statistics.deliveredOutOfOrder == 0)
                #expect(out.map(\.payload) == Array(0..<20_000))
                #expect(zip(out, out.dropFirst()).allSatisfy { $0.time <= $1.time })
            }
        }
    }

    @Test func reorderPercentHoldsPacketsBack() {
        var path = NetworkConditioner<Int>(conditions: NetworkConditions(reorderPercent: 2, reorderDelayMicroseconds: 30_000), seed: 5)
        let out = run(&path, count: 100_000)
        let held = path.statistics.reordered
        #expect(abs(Double(held) / 100_000 - 0.02) < 0.002, "held \(held)")
        // Held 30 ms with packets 20 ms apart: a held packet is overtaken by the next one unless that
        // one is held too (2 % of the time), so about 98 % of them arrive out of order.
        let outOfOrder = Double(path.statistics.deliveredOutOfOrder)
        #expect(abs(outOfOrder - Double(held) * 0.98) <= Double(held) * 0.01, "out of order \(outOfOrder) of \(held)")
        #expect(out.count == 100_000)
        #expect(out.filter { $0.delay == 30_000 }.count == held)
    }

    @Test func duplicationPercent() {
        var path = NetworkConditioner<Int>(conditions: NetworkConditions(duplicatePercent: 1), seed: 11)
        let out = run(&path, count: 100_000)
        let duplicated = path.statistics.duplicated
        #expect(abs(Double(duplicated) / 100_000 - 0.01) < 0.0015, "duplicated \(duplicated)")
        #expect(out.count == 100_000 + duplicated)
        #expect(Set(out.map(\.payload)).count == 100_000)
        #expect(path.statistics.deliveredOutOfOrder == 0)
    }

    @Test func rateLimitSetsThroughputAndDropsWhenTheQueueIsFull() throws {
        // 1000-byte packets every 8 ms (1 Mbit/s) for 10 s into 500 kbit/s with 20 packets of queue.
        let conditions = NetworkConditions(rateBitsPerSecond: 500_000, queueLimitPackets: 20)
        var path = NetworkConditioner<Int>(conditions: conditions, seed: 1)
        let out = run(&path, count: 1_250, interval: 8_000, length: 1_000)
        let first = try #require(out.first).time, last = try #require(out.last).time
        let bitsPerSecond = Double((out.count - 1) * 8_000) / (Double(last - first) / 1_000_000)
        #expect(abs(bitsPerSecond - 500_000) < 5_000, "throughput \(bitsPerSecond)")
        #expect(path.statistics.droppedByQueue + out.count == 1_250)
        #expect(abs(out.count - 646) <= 3, "delivered \(out.count)")  // 10 s at the rate, plus the queue, plus the bucket
        // A full queue of 20 packets at 16 ms each: at most 320 ms of queueing delay.
        #expect(path.statistics.maxDelayMicroseconds <= 20 * 16_000)

        // Under the rate nothing waits: the bucket refills between packets.
        var light = NetworkConditioner<Int>(conditions: conditions, seed: 1)
        let all = run(&light, count: 500, interval: 32_000, length: 1_000)
        #expect(all.count == 500 && light.statistics.maxDelayMicroseconds == 0)
    }
}
