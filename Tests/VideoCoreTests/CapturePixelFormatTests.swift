import Testing
import VideoCore

/// The pure camera conversions into I420, with known pixel values, odd sizes and padded lines
/// (Documentation/userspace-api/media/v4l/pixfmt-packed-yuv.rst, pixfmt-yuv-planar.rst).
@Suite struct CapturePixelFormatTests {
    static func convert(_ format: CapturePixelFormat, _ bytes: [UInt8], width: Int, height: Int, bytesPerLine: Int) -> I420Frame? {
        var frame = I420Frame(width: width, height: height)
        return bytes.withUnsafeBytes { format.convert($0, bytesPerLine: bytesPerLine, into: &frame) } ? frame : nil
    }

    @Test func yuyvAveragesChromaOverTwoLinesWithOddSizesAndPadding() throws {
        // 3x3, lines of 10 bytes (8 used, 2 padding `P`): Y0 U Y1 V per pixel pair; the third
        // pair's second luma (`Y`) lies beyond the width and is ignored.
        let Y: UInt8 = 99, P: UInt8 = 77
        let image: [UInt8] = [
            1, 100, 2, 200, 3, 110, Y, 210, P, P,
            4, 102, 5, 202, 6, 113, Y, 214, P, P,
            7, 50, 8, 60, 9, 51, Y, 61, P, P,
        ]
        let frame = try #require(Self.convert(.yuyv, image, width: 3, height: 3, bytesPerLine: 10))
        #expect(frame.y == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(frame.u == [101, 112, 50, 51], "rounded means of lines 0 and 1; the odd last line alone")
        #expect(frame.v == [201, 212, 60, 61])
        #expect(CapturePixelFormat.yuyv.imageSize(width: 3, height: 3, bytesPerLine: 10) == 28)
        #expect(Self.convert(.yuyv, Array(image.prefix(27)), width: 3, height: 3, bytesPerLine: 10) == nil, "one byte short")
        #expect(Self.convert(.yuyv, image, width: 3, height: 3, bytesPerLine: 7) == nil, "a line shorter than its pixels")
    }

    @Test func nv12SplitsTheInterleavedChromaPlane() throws {
        let P: UInt8 = 77
        let image: [UInt8] = [
            1, 2, 3, P, P,
            4, 5, 6, P, P,
            7, 8, 9, P, P,
            10, 20, 11, 21, P,
            12, 22, 13, 23,
        ]
        let frame = try #require(Self.convert(.nv12, image, width: 3, height: 3, bytesPerLine: 5))
        #expect(frame.y == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(frame.u == [10, 11, 12, 13] && frame.v == [20, 21, 22, 23])
        #expect(Self.convert(.nv12, Array(image.dropLast()), width: 3, height: 3, bytesPerLine: 5) == nil)
    }

    @Test func planarPassesThroughWithStridesAndSwapsYV12() throws {
        // 3x2 with luma lines of 4 bytes, chroma lines of 2 (half, rounded up).
        let P: UInt8 = 77
        let image: [UInt8] = [1, 2, 3, P, 4, 5, 6, P, 30, 31, 40, 41]
        let i420 = try #require(Self.convert(.i420, image, width: 3, height: 2, bytesPerLine: 4))
        #expect(i420.y == [1, 2, 3, 4, 5, 6] && i420.u == [30, 31] && i420.v == [40, 41])
        let yv12 = try #require(Self.convert(.yv12, image, width: 3, height: 2, bytesPerLine: 4))
        #expect(yv12.u == [40, 41] && yv12.v == [30, 31])
        // Tightly packed (stride = width): one copy per plane.
        let tight: [UInt8] = Array(1...8) + [30, 31] + [40, 41]
        let packed = try #require(Self.convert(.i420, tight, width: 4, height: 2, bytesPerLine: 4))
        #expect(packed.y == Array(1...8) && packed.u == [30, 31] && packed.v == [40, 41])
        #expect(Self.convert(.i420, Array(image.dropLast()), width: 3, height: 2, bytesPerLine: 4) == nil)
    }

    @Test func aFailedConversionLeavesTheFrameAlone() {
        var frame = I420Frame(width: 4, height: 4)
        let before = frame
        let short = [UInt8](repeating: 200, count: 10)
        #expect(!short.withUnsafeBytes { CapturePixelFormat.nv12.convert($0, bytesPerLine: 4, into: &frame) })
        #expect(frame == before)
    }

    @Test func fourCCsReadAsText() {
        #expect(CapturePixelFormat.allCases.map(\.description) == ["YU12", "YV12", "NV12", "YUYV"])
        #expect(CapturePixelFormat.text(ofFourCC: 0x4750_4A4D) == "MJPG")
        #expect(CapturePixelFormat.text(ofFourCC: 0x0000_0041) == "A???")
    }
}

/// Which of a device's formats and sizes to capture in.
@Suite struct CaptureFormatChoiceTests {
    static let mjpeg: UInt32 = 0x4750_4A4D, h264: UInt32 = 0x3436_3248
    static func size(_ width: Int, _ height: Int) -> PixelSize { PixelSize(width: width, height: height) }
    static func offer(_ format: CapturePixelFormat, _ sizes: PixelSize...) -> CaptureFormatOffer {
        CaptureFormatOffer(fourcc: format.rawValue, sizes: sizes)
    }

    @Test func prefersTheRequestedSizeThenTheLeastConversion() {
        let webcam = [CaptureFormatOffer(fourcc: Self.mjpeg, sizes: [Self.size(1280, 720), Self.size(640, 480)]),
                      Self.offer(.yuyv, Self.size(640, 480), Self.size(320, 240))]
        #expect(CaptureFormatChoice.choose(from: webcam, requested: Self.size(640, 480))
                == CaptureFormatChoice(pixelFormat: .yuyv, size: Self.size(640, 480)), "MJPEG is passed over")
        let both = [Self.offer(.yuyv, Self.size(1280, 720)), Self.offer(.nv12, Self.size(1280, 720)), Self.offer(.i420, Self.size(640, 360))]
        #expect(CaptureFormatChoice.choose(from: both, requested: Self.size(1280, 720))?.pixelFormat == .nv12, "NV12 before YUYV at one size")
        #expect(CaptureFormatChoice.choose(from: both, requested: Self.size(640, 360))?.pixelFormat == .i420, "the exact size first")
    }

    @Test func fallsBackToTheNearestCoveringThenTheLargestSize() {
        let yuyv = [Self.offer(.yuyv, Self.size(320, 240), Self.size(1280, 720), Self.size(640, 480))]
        #expect(CaptureFormatChoice.choose(from: yuyv, requested: Self.size(640, 360))?.size == Self.size(640, 480))
        #expect(CaptureFormatChoice.choose(from: yuyv, requested: Self.size(1920, 1080))?.size == Self.size(1280, 720))
        let anySize = [Self.offer(.yuyv), Self.offer(.nv12, Self.size(640, 480))]
        #expect(CaptureFormatChoice.choose(from: anySize, requested: Self.size(800, 600))
                == CaptureFormatChoice(pixelFormat: .yuyv, size: Self.size(800, 600)), "a stepwise format takes any size")
    }

    @Test func nothingConvertibleIsNil() {
        let offers = [CaptureFormatOffer(fourcc: Self.mjpeg, sizes: [Self.size(640, 480)]), CaptureFormatOffer(fourcc: Self.h264)]
        #expect(CaptureFormatChoice.choose(from: offers, requested: Self.size(640, 480)) == nil)
        #expect(CaptureFormatChoice.choose(from: [], requested: Self.size(640, 480)) == nil)
    }
}
