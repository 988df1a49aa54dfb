import ParleyVPX
import Testing
import VideoCore

/// Three-layer VP8 simulcast from one 640×360 test pattern: each layer decodes at its own size and
/// shows the moving picture, key frames go where they are asked for, paused layers send nothing
/// and resume with a key frame, bitrates split in the standard proportions.
@Suite struct VP8SimulcastEncoderTests {
    @Test func threeLayersDecodeAtTheirSizes() throws {
        let encoder = try VP8SimulcastEncoder(width: 640, height: 360, maxBitrate: 2_150_000)
        #expect(encoder.layers.map(\.rid) == ["q", "h", "f"])
        #expect(encoder.layers.map { "\($0.width)x\($0.height)" } == ["160x90", "320x180", "640x360"])
        #expect(encoder.layers.map(\.bitrate) == [150_000, 500_000, 1_500_000])
        var pattern = TestPattern(width: 640, height: 360)
        let decoders = try ["q", "h", "f"].map { _ in try VP8Decoder() }
        var bytes = [0, 0, 0], decoded = [0, 0, 0]
        var picture = I420Frame(width: 1, height: 1)
        for index in 0..<30 {
            let frame = pattern.next()
            let out = try encoder.encode(frame)
            if index == 0 { #expect(out.count == 3 && out.allSatisfy(\.frame.isKeyFrame)) }
            for encoded in out {
                let layer = try #require(["q", "h", "f"].firstIndex(of: encoded.rid))
                bytes[layer] += encoded.frame.data.count
                #expect(try decoders[layer].decode(encoded.frame.data, into: &picture, timestamp: encoded.frame.timestamp))
                #expect(picture.width == encoded.width && picture.height == encoded.height)
                decoded[layer] += 1
                var reference = frame
                for _ in 0..<(layer == 0 ? 2 : layer == 1 ? 1 : 0) { reference = reference.halved() }
                #expect(picture.lumaPSNR(against: reference) > 25, "\(encoded.rid) frame \(index)")
                let bar = pattern.barPosition(ofFrame: UInt32(index)) / (layer == 0 ? 4 : layer == 1 ? 2 : 1)
                let seen = try #require(TestPattern.movingBarPosition(in: picture))
                #expect(abs(seen - bar) <= 2, "\(encoded.rid): bar at \(seen), expected \(bar)")
            }
        }
        print("simulcast 640x360, 30 frames: bytes q \(bytes[0]) h \(bytes[1]) f \(bytes[2])")
        #expect(decoded == [30, 30, 30])
        // One second of video: each layer within its own budget (the pattern is simple; a
        // layer may need less).
        for (layer, sent) in zip(encoder.layers, bytes) { #expect(sent * 8 <= layer.bitrate * 3 / 2, "\(layer.rid): \(sent) bytes") }
    }

    @Test func keyFramesPausesAndBitrates() throws {
        let encoder = try VP8SimulcastEncoder(width: 640, height: 360)
        var pattern = TestPattern(width: 640, height: 360)
        _ = try encoder.encode(pattern.next())
        func keyFrames(_ out: [SimulcastEncodedFrame]) -> [String] { out.filter(\.frame.isKeyFrame).map(\.rid) }
        #expect(keyFrames(try encoder.encode(pattern.next())) == [])
        encoder.requestKeyFrame(rid: "h")
        #expect(keyFrames(try encoder.encode(pattern.next())) == ["h"])
        encoder.requestKeyFrame()
        #expect(keyFrames(try encoder.encode(pattern.next())) == ["q", "h", "f"])

        #expect(encoder.setLayer("q", enabled: false) && encoder.setLayer("f", enabled: false))
        #expect(!encoder.setLayer("x", enabled: false))
        #expect(try encoder.encode(pattern.next()).map(\.rid) == ["h"], "paused layers send nothing")
        encoder.setLayer("q", enabled: true)
        let resumed = try encoder.encode(pattern.next())
        #expect(resumed.map(\.rid) == ["q", "h"] && keyFrames(resumed) == ["q"], "a resumed layer starts with a key frame")

        try encoder.setMaxBitrate(1_000_000)
        #expect(encoder.layers.map(\.bitrate) == [69_767, 232_558, 697_674])
        #expect(encoder.maxBitrate == 1_000_000)
        #expect(throws: VPXError.self) { try encoder.encode(I420Frame(width: 320, height: 240)) }
    }

    @Test func fewerLayersForSmallPicturesOrOnRequest() throws {
        let small = try VP8SimulcastEncoder(width: 320, height: 48)
        #expect(small.layers.map(\.rid) == ["h", "f"], "a quarter of 48 rows is under 16")
        let two = try VP8SimulcastEncoder(width: 640, height: 360, layerCount: 2, maxBitrate: 2_000_000)
        #expect(two.layers.map(\.rid) == ["h", "f"] && two.layers.map(\.bitrate) == [500_000, 1_500_000])
        let one = try VP8SimulcastEncoder(width: 640, height: 360, layerCount: 1, maxBitrate: 800_000)
        #expect(one.layers.map(\.rid) == ["f"] && one.layers.map(\.bitrate) == [800_000])
        #expect(throws: VPXError.self) { try VP8SimulcastEncoder(width: 0, height: 360) }
    }

    /// With grain (a camera's noise) each layer spends about its share of the budget, so the
    /// layers' rates stand apart as a real camera's do; the plain pattern stays far under them.
    @Test(arguments: [2_150_000, 1_000_000]) func grainFillsEachLayersBudget(_ maxBitrate: Int) throws {
        let encoder = try VP8SimulcastEncoder(width: 640, height: 360, maxBitrate: maxBitrate)
        var pattern = TestPattern(width: 640, height: 360, grain: 12)
        var bytes = [0, 0, 0]
        // Two seconds; the first half lets rate control settle after the first key frames.
        for index in 0..<60 {
            for encoded in try encoder.encode(pattern.next()) where index >= 30 {
                bytes[try #require(["q", "h", "f"].firstIndex(of: encoded.rid))] += encoded.frame.data.count
            }
        }
        let rates = bytes.map { $0 * 8 }
        print("simulcast 640x360 with grain at \(maxBitrate) bit/s: q \(rates[0]) h \(rates[1]) f \(rates[2]) bit/s")
        for (layer, rate) in zip(encoder.layers, rates) {
            #expect(rate > layer.bitrate * 6 / 10 && rate < layer.bitrate * 3 / 2, "\(layer.rid): \(rate) bit/s for \(layer.bitrate)")
        }
        #expect(rates[2] > 2 * rates[1] && rates[1] > 2 * rates[0])
    }
}
