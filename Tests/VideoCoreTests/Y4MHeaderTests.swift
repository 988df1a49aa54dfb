import Testing
import VideoCore

/// YUV4MPEG2 stream headers (mjpegtools yuv4mpeg(5)): what ffmpeg writes, round trips, and a
/// table of malformed headers that must throw, never trap.
@Suite struct Y4MHeaderTests {
    @Test func parsesWhatFFmpegWrites() throws {
        let line = Array("YUV4MPEG2 W640 H360 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n".utf8)
        let header = try Y4MHeader(parsing: line[...])
        #expect(header.width == 640 && header.height == 360)
        #expect(header.frameRate == FrameRate(numerator: 30_000, denominator: 1001))
        #expect(header.colorspace == .c420jpeg)
        #expect(header.interlacing == UInt8(ascii: "p"))
        #expect(header.pixelAspect == (1, 1))
        #expect(header.comments == ["YSCSS=420JPEG"])
        #expect(header.frameByteCount == 640 * 360 * 3 / 2)
        var out: [UInt8] = []
        header.serialize(into: &out)
        #expect(out.last == 0x0A && out.count == header.serializedSize)
        #expect(try Y4MHeader(parsing: out[...]) == header)
    }

    @Test func defaultsWhenOptionalParametersAreAbsent() throws {
        let header = try Y4MHeader(parsing: Array("YUV4MPEG2 W33 H17".utf8)[...])
        #expect(header.colorspace == .c420jpeg, "absent C is 420jpeg")
        #expect(header.frameRate == FrameRate(framesPerSecond: 25), "ffmpeg's default rate")
        #expect(header.frameByteCount == 33 * 17 + 2 * 17 * 9, "chroma rounded up")
        for name in ["420", "420mpeg2", "420paldv"] {
            let parsed = try Y4MHeader(parsing: Array("YUV4MPEG2 W2 H2 C\(name)\nFRAME".utf8)[...])
            #expect(parsed.colorspace.rawValue == name)
        }
    }

    @Test(arguments: [
        ("", VideoContainerError.badSignature),
        ("YUV4MPEG", .badSignature),
        ("YUV4MPEG2W640 H360", .badSignature),
        ("YUV4MPEG2 H360", .missingParameter("W")),
        ("YUV4MPEG2 W640", .missingParameter("H")),
        ("YUV4MPEG2 W0 H360", .tooLarge("picture 0x360")),
        ("YUV4MPEG2 W20000 H10", .tooLarge("picture 20000x10")),
        ("YUV4MPEG2 W9999999999 H10", .invalidParameter("W")),
        ("YUV4MPEG2 W-4 H10", .invalidParameter("W")),
        ("YUV4MPEG2 W4 H10 F30", .invalidParameter("F")),
        ("YUV4MPEG2 W4 H10 F0:1", .invalidParameter("F")),
        ("YUV4MPEG2 W4 H10 F1:0", .invalidParameter("F")),
        ("YUV4MPEG2 W4 H10 F5000:1", .invalidParameter("F")),
        ("YUV4MPEG2 W4 H10 Ix", .invalidParameter("I")),
        ("YUV4MPEG2 W4 H10 C422", .unsupportedColorspace("422")),
        ("YUV4MPEG2 W4 H10 Cmono", .unsupportedColorspace("mono")),
        ("YUV4MPEG2 W4 H10 C420p10", .unsupportedColorspace("420p10")),
        ("YUV4MPEG2 W4 H10 Z1", .invalidParameter("Z")),
    ])
    func malformedHeadersThrow(_ text: String, _ expected: VideoContainerError) {
        #expect(throws: expected) { try Y4MHeader(parsing: Array(text.utf8)[...]) }
    }

    @Test func commentsWithSpacesAreWrittenParseably() throws {
        var header = Y4MHeader(width: 4, height: 4, frameRate: FrameRate(framesPerSecond: 30))
        header.comments = ["made by parley", "two\nlines"]
        var out: [UInt8] = []
        header.serialize(into: &out)
        #expect(try Y4MHeader(parsing: out[...]).comments == ["made_by_parley", "two_lines"])
    }

    @Test func aHeaderLineOverTheLimitThrows() {
        let line = Array(("YUV4MPEG2 W4 H4 X" + String(repeating: "a", count: VideoLimits.maximumHeaderLine)).utf8)
        #expect(throws: VideoContainerError.headerTooLong(limit: VideoLimits.maximumHeaderLine)) { try Y4MHeader(parsing: line[...]) }
    }

    @Test func frameRatesGiveExactTimestamps() throws {
        let ntsc = try #require(FrameRate(numerator: 30_000, denominator: 1001))
        #expect(ntsc.timestamp90kHz(ofFrame: 30) == 90_090, "3003 ticks a frame")
        #expect(ntsc.nanoseconds(ofFrame: 30_000) == 1001 * 1_000_000_000)
        #expect(FrameRate(framesPerSecond: 30).timestamp90kHz(ofFrame: 1) == 3000)
        #expect(FrameRate(numerator: 1, denominator: 4000) == nil, "below one frame an hour")
        #expect(FrameRate(numerator: 1, denominator: 60)!.nanoseconds(ofFrame: .max) == .max, "saturates")
    }
}
