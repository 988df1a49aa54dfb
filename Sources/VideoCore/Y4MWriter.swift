/// Writes I420 frames as a YUV4MPEG2 stream (mjpegtools yuv4mpeg(5)): the header once, then
/// `FRAME\n` and the three planes per frame. Pure: the bytes go to `out`; `Y4MFileSink` puts
/// them in a file.
public struct Y4MWriter: Sendable {
    public let header: Y4MHeader
    static let frameLine = Array("FRAME\n".utf8)

    public init(header: Y4MHeader) { self.header = header }

    public func writeHeader(into out: inout [UInt8]) { header.serialize(into: &out) }

    /// Appends one frame; throws when its size is not the stream's.
    public func write(_ frame: I420Frame, into out: inout [UInt8]) throws(VideoSourceError) {
        guard frame.width == header.width, frame.height == header.height else {
            throw .sizeMismatch(expected: "\(header.width)x\(header.height)", got: "\(frame.width)x\(frame.height)")
        }
        out += Self.frameLine
        out += frame.y
        out += frame.u
        out += frame.v
    }
}
