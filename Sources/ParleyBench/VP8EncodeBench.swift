#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ParleyVPX
import VideoCore

/// `parley-bench vp8-encode`: what sending one camera's video costs. Encodes 640×360 test-pattern
/// frames with camera-like grain (60 distinct pictures, cycled) at 30 fps, one layer at 1.5 Mbit/s
/// and three simulcast layers (q/h/f at 2.15 Mbit/s in all), and prints µs per frame and the share of
/// one core that 30 fps needs (µs per frame × 30 / 10⁶). Also the halving and decoding costs, and
/// the camera conversions into I420 (YUYV, NV12, I420).
/// Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so a busy machine delays the run
/// but does not inflate the figures much (shared caches still do).
enum VP8EncodeBench {
    static func run(frames: Int = 300) throws {
        let pictures = grainyPictures(count: 60)
        print("vp8-encode: 640x360, \(frames) frames per run (best of 3, thread CPU time), cpu-used 8, 1 thread")
        print("| what | µs per frame | share of one core at 30 fps | kbit/s |")
        print("| --- | ---: | ---: | ---: |")
        for (name, simulcast) in [("VP8 one layer, 1.5 Mbit/s", false), ("VP8 simulcast q/h/f, 2.15 Mbit/s", true)] {
            var best = Double.infinity, bits = 0
            for _ in 0..<3 {
                let single = try VP8Encoder(width: 640, height: 360, bitrate: 1_500_000)
                let layers = try VP8SimulcastEncoder(width: 640, height: 360)
                var bytes = 0
                let micros = try measure {
                    for index in 0..<frames {
                        var picture = pictures[index % pictures.count]
                        picture.timestamp = UInt32(index * 3000)
                        if simulcast {
                            for out in try layers.encode(picture) { bytes += out.frame.data.count }
                        } else {
                            for out in try single.encode(picture) { bytes += out.data.count }
                        }
                    }
                }
                best = min(best, micros / Double(frames))
                bits = bytes * 8 * 30 / frames / 1000
            }
            print(row(name, best, kbps: bits))
        }
        var half = I420Frame(width: 320, height: 180), quarter = I420Frame(width: 160, height: 90)
        let halving = measure {
            for index in 0..<frames {
                pictures[index % pictures.count].halved(into: &half)
                half.halved(into: &quarter)
            }
        }
        print(row("halving 640x360 to 320x180 and 160x90", halving / Double(frames), kbps: nil))
        // What a camera adds before the encoder: its pixel format into I420 (V4L2CaptureSource).
        for format in [CapturePixelFormat.yuyv, .nv12, .i420] {
            let bytesPerLine = format.minimumBytesPerLine(width: 640)
            let image = (0..<format.imageSize(width: 640, height: 360, bytesPerLine: bytesPerLine)!).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            var frame = I420Frame(width: 640, height: 360)
            let converting = measure {
                for _ in 0..<frames { _ = image.withUnsafeBytes { format.convert($0, bytesPerLine: bytesPerLine, into: &frame) } }
            }
            print(row("camera \(format) to I420 640x360", converting / Double(frames), kbps: nil))
        }
        let encoder = try VP8Encoder(width: 640, height: 360, bitrate: 1_500_000)
        var encoded: [[UInt8]] = []
        for index in 0..<frames { encoded += try encoder.encode(pictures[index % pictures.count]).map(\.data) }
        let decoder = try VP8Decoder()
        var picture = I420Frame(width: 640, height: 360)
        let decoding = try measure { for data in encoded { _ = try decoder.decode(data, into: &picture) } }
        print(row("VP8 decode 640x360", decoding / Double(max(1, encoded.count)), kbps: nil))
    }

    static func row(_ name: String, _ micros: Double, kbps: Int?) -> String {
        let share = micros * 30 / 1_000_000 * 100
        return "| \(name) | \(Int(micros.rounded())) | \((share * 10).rounded() / 10) % | \(kbps.map(String.init) ?? "") |"
    }

    /// The test pattern with grain (`TestPattern.grain`), so the encoder spends its bitrate as it
    /// would on a camera.
    static func grainyPictures(count: Int) -> [I420Frame] {
        var pattern = TestPattern(width: 640, height: 360, grain: 12)
        return (0..<count).map { _ in pattern.next() }
    }

    /// Microseconds of this thread's CPU time `body` took.
    static func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = threadCPUMicroseconds()
        try body()
        return threadCPUMicroseconds() - start
    }

    static func threadCPUMicroseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
    }
}
