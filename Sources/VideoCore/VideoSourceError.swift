/// Why a video source, reader or sink failed. Bad input always ends here, never in a trap.
public enum VideoSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A Y4M or IVF file that does not follow its format.
    case malformed(VideoContainerError)
    /// A system call on `path` failed with `errno`.
    case io(path: String, operation: String, errno: Int32)
    /// The device exists but Parley cannot capture from it (yet).
    case captureNotSupported(device: String)
    /// Capturing from `device` failed for a reason a person can act on: not a capture device, no
    /// format Parley converts, the device gone mid-stream.
    case capture(device: String, message: String)
    /// `start` on a source that is already running.
    case alreadyStarted
    /// The video codec failed (a frame the decoder refused, an encoder that would not start),
    /// with the codec's message.
    case codec(String)
    /// A frame of another size than the sink or encoder was set up for.
    case sizeMismatch(expected: String, got: String)

    public var description: String {
        switch self {
        case .malformed(let error): "malformed video file: \(error)"
        case .io(let path, let operation, let errno): "\(operation) \(path) failed (errno \(errno))"
        case .captureNotSupported(let device): "capture not supported for device \(device)"
        case .capture(let device, let message): "capture from \(device): \(message)"
        case .alreadyStarted: "the video source is already started"
        case .codec(let message): "video codec: \(message)"
        case .sizeMismatch(let expected, let got): "frame of \(got), expected \(expected)"
        }
    }
}
