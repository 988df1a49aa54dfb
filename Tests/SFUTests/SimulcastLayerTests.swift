import SFU
import Testing

/// Simulcast layers bound by rid (RFC 8852 §3), measured and ranked, on a virtual clock.
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
        for layer in 0..<3 { layers.received(layer: layer, bytes: 0, now: 1.0) }  // each layer's window closes
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
}
