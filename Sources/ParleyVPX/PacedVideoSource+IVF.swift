import VideoCore

extension PacedVideoSource {
    /// A `.ivf` file of VP8, decoded, at the frame rate its time base gives (else
    /// `fallbackFrameRate`); `loops` starts it again at the end. The header is read now, so a
    /// missing or malformed file throws here.
    public static func ivfFile(path: String, loops: Bool = true, fallbackFrameRate: FrameRate = FrameRate(framesPerSecond: 30),
                               onEnd: (@Sendable (VideoSourceError?) -> Void)? = nil) throws(VideoSourceError) -> PacedVideoSource {
        PacedVideoSource(try IVFVideoReader(source: FileByteSource(path: path), fallbackFrameRate: fallbackFrameRate),
                         loops: loops, onEnd: onEnd)
    }
}
