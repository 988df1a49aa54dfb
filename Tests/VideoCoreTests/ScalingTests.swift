import Testing
import VideoCore

/// Halving (2×2 box) and the bilinear scaler: exact values on small planes, flat pictures stay
/// flat, the halved test pattern is still readable, sizes are checked.
@Suite struct ScalingTests {
    @Test func halvingAveragesTwoByTwoBoxes() throws {
        let frame = try #require(I420Frame(width: 4, height: 2, y: [0, 10, 20, 30, 100, 110, 120, 131], u: [50, 60], v: [7, 9], timestamp: 42))
        let half = frame.halved()
        #expect(half.width == 2 && half.height == 1 && half.timestamp == 42)
        #expect(half.y == [55, 75], "(0+10+100+110)/4 and (20+30+120+131+2)/4")
        #expect(half.u == [55] && half.v == [8], "a one-row chroma plane repeats its edge row")
    }

    @Test func halvingOddSizesRoundsUpAndKeepsFlatPlanesFlat() throws {
        var frame = I420Frame(width: 641, height: 361)
        frame.y = frame.y.map { _ in 77 }
        var half = I420Frame(width: 1, height: 1)
        frame.halved(into: &half)
        #expect(half.width == 321 && half.height == 181)
        #expect(half.y.allSatisfy { $0 == 77 } && half.u.allSatisfy { $0 == 128 })
    }

    @Test func theHalvedPatternStillCarriesItsNumberAndBar() throws {
        var pattern = TestPattern(width: 1280, height: 720)
        _ = pattern.next()
        let frame = pattern.next()
        let half = frame.halved()
        #expect(half.width == 640 && half.height == 360)
        #expect(TestPattern.movingBarPosition(in: half) == TestPattern.barStep / 2)
        let quarterScaler = try #require(I420Scaler(sourceWidth: 1280, sourceHeight: 720, width: 640, height: 360))
        var scaled = I420Frame(width: 1, height: 1)
        try quarterScaler.scale(frame, into: &scaled)
        let difference = zip(scaled.y, half.y).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(scaled.lumaPSNR(against: half) > 30, "bilinear at exactly 1/2 is close to the box")
        #expect(difference < 128)
    }

    @Test func bilinearKeepsFlatPicturesAndInterpolatesRamps() throws {
        // A horizontal ramp 0, 10, …, 70 scaled from 8 to 4 columns: centres at 0.5, 2.5, 4.5, 6.5.
        let ramp = (0..<8).map { UInt8($0 * 10) }
        let source = try #require(I420Frame(width: 8, height: 2, y: ramp + ramp, u: [1, 2, 3, 4], v: [5, 6, 7, 8]))
        let scaler = try #require(I420Scaler(sourceWidth: 8, sourceHeight: 2, width: 4, height: 2))
        var out = I420Frame(width: 4, height: 2)
        try scaler.scale(source, into: &out)
        #expect(Array(out.y.prefix(4)) == [5, 25, 45, 65])
        #expect(out.u == [2, 4] && out.v == [6, 8])
        // Upscaling a flat picture stays flat; the same size is the identity.
        var flat = I420Frame(width: 5, height: 3)
        flat.y = flat.y.map { _ in 200 }
        let up = try #require(I420Scaler(sourceWidth: 5, sourceHeight: 3, width: 13, height: 7))
        try up.scale(flat, into: &out)
        #expect(out.width == 13 && out.y.allSatisfy { $0 == 200 } && out.v.allSatisfy { $0 == 128 })
        var pattern = TestPattern(width: 320, height: 240)
        let picture = pattern.next()
        try #require(I420Scaler(sourceWidth: 320, sourceHeight: 240, width: 320, height: 240)).scale(picture, into: &out)
        #expect(out == picture)
    }

    @Test func sizesAreChecked() throws {
        #expect(I420Scaler(sourceWidth: 0, sourceHeight: 10, width: 5, height: 5) == nil)
        #expect(I420Scaler(sourceWidth: 10, sourceHeight: 10, width: 20_000, height: 5) == nil)
        let scaler = try #require(I420Scaler(sourceWidth: 8, sourceHeight: 8, width: 4, height: 4))
        var out = I420Frame(width: 4, height: 4)
        #expect(throws: VideoSourceError.sizeMismatch(expected: "8x8", got: "9x8")) { try scaler.scale(I420Frame(width: 9, height: 8), into: &out) }
    }
}
