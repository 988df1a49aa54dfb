#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import AudioCore

/// Streams 16-bit PCM into a WAV file, for recordings of any length: the header goes first with
/// "to the end of the file" sizes (so even a file never closed parses), samples are appended
/// through a 64 KiB buffer, and `close()` writes the real sizes. Appending never allocates.
///
/// Not thread-safe: one owner at a time (`FileAudioDevice` keeps it under its lock).
public final class WAVFileWriter {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// Samples appended so far (frames × channels).
    public private(set) var samplesWritten = 0

    private var descriptor: Int32
    private var pending: [UInt8]
    private var pendingCount = 0
    private static let bufferSize = 65_536

    /// Creates (or truncates) `path` and writes the header. A new file gets `mode` (less the umask).
    public init(path: String, sampleRate: Int, channels: Int, mode: mode_t = 0o644) throws(AudioDeviceError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        pending = [UInt8](repeating: 0, count: Self.bufferSize)
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw Self.error("cannot create", path) }
        let header = WAVFile.pcm16Header(sampleRate: sampleRate, channels: channels, dataByteCount: nil)
        let written = header.withUnsafeBytes { bytes in
            Result { () throws(AudioDeviceError) in try writeAll(bytes) }
        }
        try written.get()
    }

    deinit {
        try? close()
    }

    public var isOpen: Bool { descriptor >= 0 }

    /// Appends interleaved samples.
    public func append(_ samples: UnsafeBufferPointer<Int16>) throws(AudioDeviceError) {
        guard isOpen else { throw AudioDeviceError(.invalidState, "\(path) is closed") }
        var index = 0
        while index < samples.count {
            if pendingCount == pending.count { try flush() }
            let count = min(samples.count - index, (pending.count - pendingCount) / 2)
            let chunk = UnsafeBufferPointer(rebasing: samples[index..<index + count])
            pendingCount += pending.withUnsafeMutableBytes { raw in
                WAVFile.encodePCM16(chunk, into: UnsafeMutableRawBufferPointer(rebasing: raw[pendingCount...]))
            }
            index += count
        }
        samplesWritten += samples.count
    }

    /// Flushes, writes the final RIFF and data sizes and closes the file. Idempotent.
    public func close() throws(AudioDeviceError) {
        guard isOpen else { return }
        defer {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
        try flush()
        let dataBytes = min(samplesWritten * 2, WAVFile.maximumDataSize)
        try patch(UInt32(dataBytes + 36), at: WAVFile.pcm16HeaderRIFFSizeOffset)
        try patch(UInt32(dataBytes), at: WAVFile.pcm16HeaderDataSizeOffset)
    }

    private func flush() throws(AudioDeviceError) {
        guard pendingCount > 0 else { return }
        let count = pendingCount
        pendingCount = 0
        let result = pending.withUnsafeBytes { raw in
            Result { () throws(AudioDeviceError) in try writeAll(UnsafeRawBufferPointer(rebasing: raw[..<count])) }
        }
        try result.get()
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(AudioDeviceError) {
        var offset = 0
        while offset < bytes.count {
            let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.error("cannot write", path)
            }
            offset += n
        }
    }

    private func patch(_ value: UInt32, at offset: Int) throws(AudioDeviceError) {
        var little = value.littleEndian
        let n = withUnsafeBytes(of: &little) { pwrite(descriptor, $0.baseAddress, 4, off_t(offset)) }
        guard n == 4 else { throw Self.error("cannot finish", path) }
    }

    static func error(_ what: String, _ path: String) -> AudioDeviceError {
        AudioDeviceError(.file, "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}

extension WAVFile {
    /// Reads and parses a WAV file from disk.
    public init(contentsOfFile path: String) throws(AudioDeviceError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw WAVFileWriter.error("cannot open", path) }
        defer { _ = close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw WAVFileWriter.error("cannot read", path)
            }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        do {
            self = try WAVFile(parsing: bytes)
        } catch {
            throw AudioDeviceError(.unsupportedFormat, "\(path): \(error)")
        }
    }
}
