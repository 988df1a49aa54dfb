/// The camera pixel formats Parley converts to I420, by their V4L2 fourcc (linux/videodev2.h;
/// Documentation/userspace-api/media/v4l/pixfmt-yuv-planar.rst, pixfmt-packed-yuv.rst). Motion
/// JPEG is not among them: a camera offering only MJPEG cannot be captured from.
public enum CapturePixelFormat: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// `YU12` (V4L2_PIX_FMT_YUV420): I420 itself, three planes.
    case i420 = 0x3231_5559
    /// `YV12` (V4L2_PIX_FMT_YVU420): I420 with V before U.
    case yv12 = 0x3231_5659
    /// `NV12`: a luma plane, then one plane of interleaved U and V at half height.
    case nv12 = 0x3231_564E
    /// `YUYV` (V4L2_PIX_FMT_YUYV): packed 4:2:2, Y0 U Y1 V for each pair of pixels; the format
    /// every UVC camera offers.
    case yuyv = 0x5659_5559

    /// The four characters of a fourcc (`YUYV`, `MJPG`), `?` for bytes that are not printable.
    public static func text(ofFourCC code: UInt32) -> String {
        String(decoding: (0..<4).map { i -> UInt8 in
            let byte = UInt8(truncatingIfNeeded: code >> (8 * i))
            return (0x20..<0x7F).contains(byte) ? byte : UInt8(ascii: "?")
        }, as: UTF8.self)
    }

    public var description: String { Self.text(ofFourCC: rawValue) }

    /// The smallest line length (bytes) a `width`-pixel image of this format has: the luma
    /// plane's for the planar formats, the packed line's for YUYV.
    public func minimumBytesPerLine(width: Int) -> Int {
        self == .yuyv ? (width + 1) / 2 * 4 : width
    }

    /// The bytes a `width` × `height` image with lines of `bytesPerLine` needs, up to its last
    /// byte (V4L2's `sizeimage` may be larger); nil when `bytesPerLine` is too short.
    public func imageSize(width: Int, height: Int, bytesPerLine: Int) -> Int? {
        guard width > 0, height > 0, bytesPerLine >= minimumBytesPerLine(width: width) else { return nil }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        switch self {
        case .yuyv: return bytesPerLine * (height - 1) + chromaWidth * 4
        case .nv12: return bytesPerLine * (height + chromaHeight - 1) + chromaWidth * 2
        case .i420, .yv12:
            let chromaLine = (bytesPerLine + 1) / 2
            return bytesPerLine * height + chromaLine * (2 * chromaHeight - 1) + chromaWidth
        }
    }

    /// Converts one image (`bytesPerLine` per luma or packed line; planar chroma lines half
    /// that, rounded up, as V4L2 lays them out) into `frame`, whose size is the image's. False,
    /// with `frame` unchanged, when `image` is too short for that size.
    public func convert(_ image: UnsafeRawBufferPointer, bytesPerLine: Int, into frame: inout I420Frame) -> Bool {
        let width = frame.width, height = frame.height
        guard let needed = imageSize(width: width, height: height, bytesPerLine: bytesPerLine), image.count >= needed,
              let base = image.baseAddress else { return false }
        switch self {
        case .yuyv:
            I420Conversion.yuyv(base, bytesPerLine: bytesPerLine, into: &frame)
        case .nv12:
            I420Conversion.nv12(luma: base, lumaStride: bytesPerLine, chroma: base + bytesPerLine * height,
                                chromaStride: bytesPerLine, into: &frame)
        case .i420, .yv12:
            let chromaLine = (bytesPerLine + 1) / 2
            let first = base + bytesPerLine * height, second = first + chromaLine * frame.chromaHeight
            I420Conversion.planar(y: base, yStride: bytesPerLine, u: self == .i420 ? first : second,
                                  v: self == .i420 ? second : first, chromaStride: chromaLine, into: &frame)
        }
        return true
    }
}

/// The conversions behind `CapturePixelFormat.convert`, on plane pointers and strides, so a
/// source with planes apart (AVFoundation's NV12 pixel buffers) uses them too. Callers check the
/// sizes; these read exactly the frame's pixels. Inner loops use wrapping arithmetic (indices are
/// bounded by the frame's size), which lets the optimizer vectorize them.
public enum I420Conversion {
    /// Planar 4:2:0 with strides into the frame's packed planes.
    public static func planar(y: UnsafeRawPointer, yStride: Int, u: UnsafeRawPointer, v: UnsafeRawPointer,
                              chromaStride: Int, into frame: inout I420Frame) {
        let (width, height, chromaWidth, chromaHeight) = (frame.width, frame.height, frame.chromaWidth, frame.chromaHeight)
        withPlanes(&frame.y, &frame.u, &frame.v) { outY, outU, outV in
            copyRows(from: y, stride: yStride, rows: height, length: width, to: outY)
            copyRows(from: u, stride: chromaStride, rows: chromaHeight, length: chromaWidth, to: outU)
            copyRows(from: v, stride: chromaStride, rows: chromaHeight, length: chromaWidth, to: outV)
        }
    }

    /// NV12 (a luma plane and an interleaved U, V plane, each with its stride) into I420.
    public static func nv12(luma: UnsafeRawPointer, lumaStride: Int, chroma: UnsafeRawPointer, chromaStride: Int,
                            into frame: inout I420Frame) {
        let (width, height, chromaWidth, chromaHeight) = (frame.width, frame.height, frame.chromaWidth, frame.chromaHeight)
        withPlanes(&frame.y, &frame.u, &frame.v) { y, u, v in
            copyRows(from: luma, stride: lumaStride, rows: height, length: width, to: y)
            for row in 0..<chromaHeight {
                let line = (chroma + row * chromaStride).assumingMemoryBound(to: UInt8.self)
                let out = row * chromaWidth
                // Two passes, one plane each: each vectorizes, one interleaved loop does not.
                for x in 0..<chromaWidth { u[out &+ x] = line[2 &* x] }
                for x in 0..<chromaWidth { v[out &+ x] = line[2 &* x &+ 1] }
            }
        }
    }

    /// Packed YUYV 4:2:2 into I420: luma as is, each chroma sample the rounded mean of the two
    /// lines it covers (the last line alone when the height is odd).
    public static func yuyv(_ image: UnsafeRawPointer, bytesPerLine: Int, into frame: inout I420Frame) {
        let (width, height, chromaWidth, chromaHeight) = (frame.width, frame.height, frame.chromaWidth, frame.chromaHeight)
        withPlanes(&frame.y, &frame.u, &frame.v) { y, u, v in
            for row in 0..<height {
                let line = (image + row * bytesPerLine).assumingMemoryBound(to: UInt8.self)
                let out = row * width
                for x in 0..<width { y[out &+ x] = line[2 &* x] }
            }
            // A pass per plane, as in nv12: U at byte 1 of each 4, V at byte 3.
            for (plane, offset) in [(u, 1), (v, 3)] {
                for row in 0..<chromaHeight {
                    let top = (image + 2 * row * bytesPerLine).assumingMemoryBound(to: UInt8.self)
                    let bottom = 2 * row + 1 < height ? top + bytesPerLine : top
                    let out = plane + row * chromaWidth
                    for x in 0..<chromaWidth {
                        let i = 4 &* x &+ offset
                        out[x] = UInt8(truncatingIfNeeded: (UInt16(top[i]) &+ UInt16(bottom[i]) &+ 1) >> 1)
                    }
                }
            }
        }
    }

    /// The three planes' storage at once (separate `inout`s, so no overlapping access to the frame).
    private static func withPlanes(_ y: inout [UInt8], _ u: inout [UInt8], _ v: inout [UInt8],
                                   _ body: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Void) {
        y.withUnsafeMutableBufferPointer { y in
            u.withUnsafeMutableBufferPointer { u in
                v.withUnsafeMutableBufferPointer { v in body(y.baseAddress!, u.baseAddress!, v.baseAddress!) }
            }
        }
    }

    private static func copyRows(from source: UnsafeRawPointer, stride: Int, rows: Int, length: Int,
                                 to destination: UnsafeMutablePointer<UInt8>) {
        if stride == length { destination.update(from: source.assumingMemoryBound(to: UInt8.self), count: rows * length); return }
        for row in 0..<rows {
            (destination + row * length).update(from: (source + row * stride).assumingMemoryBound(to: UInt8.self), count: length)
        }
    }
}
