import SFU
import Testing

/// Simulcast layers bound by rid (RFC 8852 §3), measured and ranked; and the layer a subscription
/// gets from its receiver's loss, on a virtual clock.
@Suite struct SimulcastLayerTests {
    @Test func layersBindByRidAndRankBySizeThenBitrate() {
        var layers = SimulcastLayers(rids: ["f", "h", "q"])
        let rid: [UInt8] = Array("q".utf8)
        #expect(rid.withUnsafeBytes { layers.layer(rid: $0) } == 2)
        #expect(Array("x".utf8).withUnsafeBytes { layers.layer(rid: $0) } == nil)
        layers.bind(layer: 2, ssrc: 30)
        layers.bind(layer: 0, ssrc: 10)
        layers.bind(layer: 1, ssrc: 20)
        #expect(layers.layer(ssrc: 20) == 1 && layers.layer(ssrc: 99) == nil)
        // One second of each: f 150 kB, h 50 kB, q 10 kB.
        for tick in 0..<100 {
            let now = Double(tick) / 100
            layers.received(layer: 0, bytes: 1500, now: now)
            layers.received(layer: 1, bytes: 500, now: now)
            layers.received(layer: 2, bytes: 100, now: now)
        }
        layers.received(layer: 0, bytes: 0, now: 1.0)
        #expect(layers.layers.map(\.bitrate) == [1_200_000, 400_000, 80_000])
        var ranks: [Int] = []
        layers.ranked(now: 1.0, into: &ranks)
        #expect(ranks == [2, 1, 0], "by bitrate while no key frame told the sizes")
        layers.keyFrame(layer: 0, width: 320, height: 180)  // a sender may name its layers any way
        layers.keyFrame(layer: 1, width: 1280, height: 720)
        layers.keyFrame(layer: 2, width: 640, height: 360)
        layers.ranked(now: 1.0, into: &ranks)
        #expect(ranks == [0, 2, 1], "by key frame width once known")
        // A layer the sender stopped is not offered.
        layers.received(layer: 1, bytes: 500, now: 2.5)
        layers.ranked(now: 2.5, into: &ranks)
        #expect(ranks == [1])
    }

    static let bitrates = [150_000, 500_000, 1_700_000]

    @Test func lossStepsDownAndACleanPathProbesBackUp() {
        var selector = SimulcastLayerSelector()
        #expect(selector.choose(bitrates: Self.bitrates, now: 0) == 2, "the highest until the path shows a limit")
        selector.reported(fractionLost: 0.01, now: 1)
        #expect(selector.choose(bitrates: Self.bitrates, now: 1) == 2)
        selector.reported(fractionLost: 0.4, now: 2)
        #expect(selector.choose(bitrates: Self.bitrates, now: 2) == 1)
        selector.reported(fractionLost: 0.3, now: 3)  // within the settle time: what was queued
        #expect(selector.choose(bitrates: Self.bitrates, now: 3) == 1)
        selector.reported(fractionLost: 0.3, now: 4)
        #expect(selector.choose(bitrates: Self.bitrates, now: 4) == 0)
        selector.reported(fractionLost: 0.5, now: 6)
        #expect(selector.choose(bitrates: Self.bitrates, now: 6) == 0, "nothing below the smallest")
        // Clean: one step up after the probe delay.
        selector.reported(fractionLost: 0, now: 6.5)
        #expect(selector.choose(bitrates: Self.bitrates, now: 6.9) == 0)
        #expect(selector.choose(bitrates: Self.bitrates, now: 7.0) == 1)
        // Loss right after the step up: back down, and the next probe waits twice as long.
        selector.reported(fractionLost: 0.2, now: 8)
        #expect(selector.choose(bitrates: Self.bitrates, now: 8) == 0)
        #expect(selector.probeDelay == 6)
        #expect(selector.choose(bitrates: Self.bitrates, now: 13.9) == 0)
        #expect(selector.choose(bitrates: Self.bitrates, now: 14) == 1)
        #expect(selector.choose(bitrates: Self.bitrates, now: 20) == 2)
        // Held without loss: the probe delay returns to its base and the ceiling lifts.
        #expect(selector.choose(bitrates: Self.bitrates, now: 31) == 2)
        #expect(selector.probeDelay == SimulcastLayerSelector.baseProbeDelay && selector.ceiling == Int.max)
    }

    @Test func moderateLossHoldsTheLayerAndAMaxBitrateCaps() {
        var selector = SimulcastLayerSelector()
        _ = selector.choose(bitrates: Self.bitrates, now: 0)
        selector.reported(fractionLost: 0.3, now: 1)
        #expect(selector.choose(bitrates: Self.bitrates, now: 1) == 1)
        selector.reported(fractionLost: 0.05, now: 3)
        #expect(selector.choose(bitrates: Self.bitrates, now: 4.1) == 1, "not clean: no step up")
        #expect(selector.choose(bitrates: Self.bitrates, now: 7.2) == 2, "clean since: the next probe goes")

        var capped = SimulcastLayerSelector(maxBitrate: 600_000)
        #expect(capped.choose(bitrates: Self.bitrates, now: 0) == 1)
        capped.maxBitrate = 100_000
        #expect(capped.choose(bitrates: Self.bitrates, now: 1) == 0, "the smallest when none fits")
        #expect(capped.choose(bitrates: [], now: 2) == nil && capped.current == nil)
    }
}
