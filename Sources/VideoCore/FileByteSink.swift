#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for writing (created or truncated), for the Y4M and IVF writers. One owner;
/// closed by `close()` or when released.
public final class FileByteSink {
    public let path: String
    private var descriptor: Int32
    /// Bytes written so far.
    public private(set) var offset = 0

    public init(path: String) throws(VideoSourceError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(path: path, operation: "create", errno: errno) }
    }

    deinit { close() }

    /// Appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(VideoSourceError) {
        try write(bytes, at: offset)
        offset += bytes.count
    }

    public func write(_ bytes: [UInt8]) throws(VideoSourceError) {
        try bytes.withBytes { (p) throws(VideoSourceError) in try write(p) }
    }

    /// Overwrites bytes at `position` (see below).
    public func write(_ bytes: [UInt8], at position: Int) throws(VideoSourceError) {
        try bytes.withBytes { (p) throws(VideoSourceError) in try write(p, at: position) }
    }

    /// Overwrites bytes at `position` (a header's frame count, once known); the append offset stays.
    public func write(_ bytes: UnsafeRawBufferPointer, at position: Int) throws(VideoSourceError) {
        guard descriptor >= 0 else { throw .io(path: path, operation: "write (closed)", errno: EBADF) }
        var done = 0
        while done < bytes.count {
            let n = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(position + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", errno: errno)
            }
            done += n
        }
    }

    /// Closes the file; later writes throw. Idempotent.
    public func close() {
        guard descriptor >= 0 else { return }
        posixClose(descriptor)
        descriptor = -1
    }
}
