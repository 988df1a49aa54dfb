#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for reading as a `VideoByteSource`, buffered (header lines are read a byte at
/// a time; plane reads larger than the buffer go straight to the caller's memory). One owner.
public final class FileByteSource: VideoByteSource {
    public let path: String
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0, end = 0

    public init(path: String) throws(VideoSourceError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
    }

    deinit { posixClose(descriptor) }

    public func read(into destination: UnsafeMutableRawBufferPointer) throws(VideoSourceError) -> Int {
        guard destination.count > 0 else { return 0 }
        if start == end {
            if destination.count >= buffer.count { return try system(destination) }
            let n = try buffer.withMutableBytes { (p) throws(VideoSourceError) -> Int in try system(p) }
            start = 0
            end = n
            if n == 0 { return 0 }
        }
        let n = min(destination.count, end - start)
        buffer.withUnsafeBytes { destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + n)])) }
        start += n
        return n
    }

    public func seek(to offset: Int) throws(VideoSourceError) {
        start = 0
        end = 0
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else { throw .io(path: path, operation: "seek", errno: errno) }
    }

    private func system(_ destination: UnsafeMutableRawBufferPointer) throws(VideoSourceError) -> Int {
        while true {
            let n = posixRead(descriptor, destination.baseAddress, destination.count)
            if n >= 0 { return n }
            if errno != EINTR { throw .io(path: path, operation: "read", errno: errno) }
        }
    }
}
