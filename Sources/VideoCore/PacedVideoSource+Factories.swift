extension PacedVideoSource {
    /// The moving test pattern (`--video testsrc`: 640×360 at 30 fps unless told otherwise);
    /// nil for a picture smaller than the pattern needs (`TestPattern.minimumWidth`/`minimumHeight`).
    public static func testPattern(width: Int = 640, height: Int = 360, framesPerSecond: Int = 30) -> PacedVideoSource? {
        guard width >= TestPattern.minimumWidth, height >= TestPattern.minimumHeight, VideoLimits.accepts(width: width, height: height),
              (1...1000).contains(framesPerSecond) else { return nil }
        return PacedVideoSource(TestPattern(width: width, height: height, framesPerSecond: framesPerSecond))
    }

    /// A `.y4m` file at its own frame rate; `loops` starts it again at the end. The header is
    /// read now, so a missing or malformed file throws here.
    public static func y4mFile(path: String, loops: Bool = true,
                               onEnd: (@Sendable (VideoSourceError?) -> Void)? = nil) throws(VideoSourceError) -> PacedVideoSource {
        PacedVideoSource(try Y4MReader(source: FileByteSource(path: path)), loops: loops, onEnd: onEnd)
    }
}
