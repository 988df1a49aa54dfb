/// Writes frames to a `.y4m` file. The first frame fixes the size (the header is written then);
/// a later frame of another size throws `sizeMismatch`. One owner.
public final class Y4MFileSink: VideoFrameSink {
    private let file: FileByteSink
    private let frameRate: FrameRate
    private var writer: Y4MWriter?
    private var scratch: [UInt8] = []
    public private(set) var framesWritten = 0

    public init(path: String, frameRate: FrameRate) throws(VideoSourceError) {
        file = try FileByteSink(path: path)
        self.frameRate = frameRate
    }

    public func write(_ frame: I420Frame) throws(VideoSourceError) {
        scratch.removeAll(keepingCapacity: true)
        if writer == nil {
            let started = Y4MWriter(header: Y4MHeader(width: frame.width, height: frame.height, frameRate: frameRate))
            started.writeHeader(into: &scratch)
            writer = started
        }
        try writer?.write(frame, into: &scratch)
        try file.write(scratch)
        framesWritten += 1
    }

    public func close() throws(VideoSourceError) { file.close() }
}
