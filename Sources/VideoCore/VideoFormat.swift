/// What a video source produces: picture size in pixels and frame rate.
public struct VideoFormat: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var frameRate: FrameRate

    public init(width: Int, height: Int, frameRate: FrameRate) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    public var description: String { "\(width)x\(height) at \(frameRate)" }
}
