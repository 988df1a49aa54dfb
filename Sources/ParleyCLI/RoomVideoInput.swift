import ParleyVPX
import VideoCore

/// `--video testsrc | camera[:N] | /dev/videoN | IN.y4m | IN.ivf` with `--video-size WxH` and
/// `--fps N` (test pattern and camera only): the local video track's source, opened and checked
/// while parsing, so a missing camera or a missing or malformed file is a usage error.
struct RoomVideoInput: Sendable {
    static let defaultWidth = 640, defaultHeight = 360, defaultFramesPerSecond = 30

    let source: any VideoSource
    /// `test pattern 640x360 at 30 fps`, `in.y4m (320x240 at 25 fps, looped)`.
    let description: String

    /// Nil without `--video` (then `--video-size` and `--fps` are usage errors too).
    init?(_ parsed: Arguments) throws(UsageError) {
        guard let video = parsed.value("video") else {
            if parsed.value("video-size") != nil || parsed.value("fps") != nil {
                throw UsageError("--video-size and --fps go with --video testsrc or a camera")
            }
            return nil
        }
        if video == "testsrc" {
            let (width, height) = try Self.size(parsed.value("video-size"))
            let fps = try Self.framesPerSecond(parsed.value("fps"))
            source = PacedVideoSource(TestPattern(width: width, height: height, framesPerSecond: fps))
            description = "test pattern \(width)x\(height) at \(fps) fps"
            return
        }
        if RoomCamera.names(video) {
            (source, description) = try RoomCamera.source(video, size: try Self.size(parsed.value("video-size")),
                                                          framesPerSecond: try Self.framesPerSecond(parsed.value("fps")))
            return
        }
        guard parsed.value("video-size") == nil, parsed.value("fps") == nil else {
            throw UsageError("--video-size and --fps go with --video testsrc or a camera (a file has its own size and rate)")
        }
        guard fileExists(video) else { throw UsageError("--video must be testsrc, camera[:N], /dev/videoN, a .y4m or an .ivf file; no such file \(video)") }
        let lowercased = video.lowercased()
        guard lowercased.hasSuffix(".y4m") || lowercased.hasSuffix(".ivf") else {
            throw UsageError("--video must be testsrc, camera[:N], /dev/videoN, a .y4m or an .ivf file, got \(video)")
        }
        do throws(VideoSourceError) {
            if lowercased.hasSuffix(".y4m") {
                let reader = try Y4MReader(source: try FileByteSource(path: video))
                description = "\(video) (\(reader.format), looped)"
                source = PacedVideoSource(reader, loops: true)
            } else {
                let reader = try IVFVideoReader(source: try FileByteSource(path: video))
                description = "\(video) (VP8 \(reader.format), looped)"
                source = PacedVideoSource(reader, loops: true)
            }
        } catch {
            throw UsageError("--video \(video): \(error)")
        }
    }

    /// `WxH`, within the test pattern's minimum (it draws a frame code and a bar) and VP8's maximum.
    static func size(_ text: String?) throws(UsageError) -> (Int, Int) {
        guard let text else { return (defaultWidth, defaultHeight) }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              width >= TestPattern.minimumWidth, height >= TestPattern.minimumHeight,
              width <= 3_840, height <= 2_160, width % 2 == 0, height % 2 == 0 else {
            throw UsageError("--video-size must be WIDTHxHEIGHT, even numbers from \(TestPattern.minimumWidth)x"
                             + "\(TestPattern.minimumHeight) to 3840x2160, got \(text)")
        }
        return (width, height)
    }

    static func framesPerSecond(_ text: String?) throws(UsageError) -> Int {
        guard let text else { return defaultFramesPerSecond }
        guard let fps = Int(text), (1...60).contains(fps) else { throw UsageError("--fps must be 1 to 60, got \(text)") }
        return fps
    }
}
