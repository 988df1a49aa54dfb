/// Receives a source's frames, on the source's own thread, one call per frame. A consumer that
/// keeps a frame keeps a copy-on-write value: the source then renders the next one elsewhere.
public typealias VideoFrameConsumer = @Sendable (I420Frame) -> Void

/// Something that pushes frames to a consumer at its frame rate between `start` and `stop`: a
/// test pattern, a Y4M or IVF file, a camera. A `LocalVideoTrack` is made from one.
public protocol VideoSource: AnyObject, Sendable {
    /// The size and rate of the frames it pushes.
    var format: VideoFormat { get }
    /// Starts pushing frames to `consumer`; throws `alreadyStarted` when running.
    func start(_ consumer: @escaping VideoFrameConsumer) throws(VideoSourceError)
    /// Stops; once it returns the consumer is not called again (unless called from the consumer
    /// itself, when the current call is the last). Idempotent.
    func stop()
    /// Whether frames are being pushed.
    var isRunning: Bool { get }
}
