/// Reads a YUV4MPEG2 stream frame by frame: the stream header, then for each frame a `FRAME`
/// line (parameters ignored) and the I420 planes, read straight into the caller's frame (no
/// allocation per frame once the frame has the stream's size). Works on any `VideoByteSource`.
public struct Y4MReader<Source: VideoByteSource>: VideoFrameProducer {
    public let header: Y4MHeader
    private var source: Source
    private let dataStart: Int
    private var line: [UInt8] = []
    /// Frames read since the start (or the last rewind).
    public private(set) var frameIndex: Int64 = 0

    /// Reads and checks the stream header.
    public init(source: Source) throws(VideoSourceError) {
        self.source = source
        var line: [UInt8] = []
        guard try self.source.readLine(into: &line, limit: VideoLimits.maximumHeaderLine) else { throw .malformed(.truncated) }
        do { header = try Y4MHeader(parsing: line[...]) } catch { throw .malformed(error) }
        dataStart = line.count + 1
        line.reserveCapacity(64)
        self.line = line
    }

    public var format: VideoFormat { header.format }

    public mutating func produce(into frame: inout I420Frame) throws(VideoSourceError) -> Bool {
        guard try source.readLine(into: &line, limit: VideoLimits.maximumHeaderLine) else { return false }
        guard line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == 0x20 else { throw .malformed(.badSignature) }
        frame.resize(width: header.width, height: header.height)
        frame.timestamp = header.frameRate.timestamp90kHz(ofFrame: frameIndex)
        for plane in 0..<3 {
            let complete = try Self.fill(plane, of: &frame, from: &source)
            guard complete else { throw .malformed(.truncated) }
        }
        frameIndex += 1
        return true
    }

    public mutating func rewind() throws(VideoSourceError) {
        try source.seek(to: dataStart)
        frameIndex = 0
    }

    private static func fill(_ plane: Int, of frame: inout I420Frame, from source: inout Source) throws(VideoSourceError) -> Bool {
        switch plane {
        case 0: try frame.y.withMutableBytes { (p) throws(VideoSourceError) -> Bool in try source.readFully(into: p) }
        case 1: try frame.u.withMutableBytes { (p) throws(VideoSourceError) -> Bool in try source.readFully(into: p) }
        default: try frame.v.withMutableBytes { (p) throws(VideoSourceError) -> Bool in try source.readFully(into: p) }
        }
    }
}
