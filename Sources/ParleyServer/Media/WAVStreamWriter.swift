import Glibc
import AudioCore

/// Streams 16-bit PCM into a WAV file: the canonical header first with "until the end of the
/// file" sizes (so a file cut short by a crash still parses), samples through a 64 KiB buffer,
/// and the real RIFF and data sizes patched in by `close()`. Appending allocates nothing.
/// One owner at a time (the recorder keeps it under its lock).
final class WAVStreamWriter {
    let path: String
    let sampleRate: Int
    let channels: Int
    private(set) var samplesWritten = 0
    private var descriptor: Int32
    private var pending: [UInt8]
    private var pendingCount = 0

    init(path: String, sampleRate: Int, channels: Int) throws(MediaError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        pending = [UInt8](repeating: 0, count: 65_536)
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw Self.failure("cannot create", path) }
        let header = WAVFile.pcm16Header(sampleRate: sampleRate, channels: channels, dataByteCount: nil)
        try header.withUnsafeBytes { bytes in Result { () throws(MediaError) in try write(bytes, at: nil) } }.get()
    }

    deinit { try? close() }

    var isOpen: Bool { descriptor >= 0 }

    /// Appends interleaved samples.
    func append(_ samples: UnsafeBufferPointer<Int16>) throws(MediaError) {
        guard isOpen else { throw MediaError(.internalFailure, "\(path) is closed") }
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

    /// Flushes, writes the final sizes and closes. Idempotent.
    func close() throws(MediaError) {
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

    private func flush() throws(MediaError) {
        guard pendingCount > 0 else { return }
        let count = pendingCount
        pendingCount = 0
        try pending.withUnsafeBytes { raw in
            Result { () throws(MediaError) in try write(UnsafeRawBufferPointer(rebasing: raw[..<count]), at: nil) }
        }.get()
    }

    private func patch(_ value: UInt32, at offset: Int) throws(MediaError) {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        try bytes.withUnsafeBytes { raw in Result { () throws(MediaError) in try write(raw, at: offset) } }.get()
    }

    /// Writes all of `bytes` at the file position (`offset` nil) or at `offset` (pwrite).
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int?) throws(MediaError) {
        var done = 0
        while done < bytes.count {
            let base = bytes.baseAddress! + done
            let n = offset.map { pwrite(descriptor, base, bytes.count - done, off_t($0 + done)) }
                ?? Glibc.write(descriptor, base, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.failure("cannot write", path)
            }
            done += n
        }
    }

    private static func failure(_ what: String, _ path: String) -> MediaError {
        MediaError(.internalFailure, "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
