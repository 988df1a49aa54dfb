/// A pull-based supply of frames, the part of a source that is not about time: a
/// `PacedVideoSource` asks it for a frame whenever one is due. Test patterns and file readers
/// conform; tests and benchmarks pull frames directly, without a thread.
public protocol VideoFrameProducer {
    /// The size and rate of the frames it produces.
    var format: VideoFormat { get }
    /// Writes the next picture into `frame` (reusing its planes when the size matches); false
    /// at the end of the input. The frame's timestamp is set on the 90 kHz clock.
    mutating func produce(into frame: inout I420Frame) throws(VideoSourceError) -> Bool
    /// Goes back to the first frame, for looping.
    mutating func rewind() throws(VideoSourceError)
}

extension I420Frame {
    /// Makes this frame `width`×`height`, reallocating only when the size differs.
    public mutating func resize(width: Int, height: Int) {
        guard width != self.width || height != self.height else { return }
        self = I420Frame(width: width, height: height, timestamp: timestamp)
    }
}
