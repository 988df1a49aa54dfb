/// Where decoded frames go: a file writer, a snapshot taker, a renderer.
public protocol VideoFrameSink: AnyObject {
    /// Takes one frame.
    func write(_ frame: I420Frame) throws(VideoSourceError)
    /// Finishes (headers completed, file closed); later writes throw. Idempotent.
    func close() throws(VideoSourceError)
}
