import AudioCore
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyMP3
import ParleyStore

/// A recording's audio as the REST API serves it: the WAV file as written, or MP3 (LAME, constant
/// bit rate, 32 kbit/s per channel at the recording's rate) encoded from it on the first request
/// and kept beside it as `RE….mp3` (mode 0600, like the WAV) for the next ones.
package enum RecordingMedia {
    package enum Format {
        case wav, mp3

        package var contentType: String { self == .wav ? "audio/x-wav" : "audio/mpeg" }
    }

    package enum Failure: Error, CustomStringConvertible {
        /// The WAV file is missing, too large to serve, or unreadable (the resource answers 404).
        case unreadable(String)
        /// The WAV could not be turned into MP3.
        case encoding(String)

        package var description: String {
            switch self {
            case .unreadable(let reason), .encoding(let reason): reason
            }
        }
    }

    /// Where the MP3 of the WAV at `path` is kept.
    package static func mp3Path(forWAV path: String) -> String {
        (path.hasSuffix(".wav") ? String(path.dropLast(4)) : path) + ".mp3"
    }

    package static func bytes(of recording: RecordingRecord, format: Format, maxWAVBytes: Int) throws(Failure) -> [UInt8] {
        let files = FileManager.default
        let path = recording.filePath
        let size = ((try? files.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue
        guard let size, size <= maxWAVBytes else { throw .unreadable("\(path) is missing or over \(maxWAVBytes) bytes") }
        if format == .mp3, let cached = files.contents(atPath: mp3Path(forWAV: path)), !cached.isEmpty {
            return Array(cached)
        }
        guard let wav = files.contents(atPath: path) else { throw .unreadable("cannot read \(path)") }
        guard format == .mp3 else { return Array(wav) }
        let parsed: WAVFile
        do { parsed = try WAVFile(parsing: Array(wav)) } catch { throw .encoding("\(path) is not a WAV file: \(error)") }
        let mp3: [UInt8]
        do { mp3 = try MP3Encoder.encode(parsed.samples, sampleRate: parsed.sampleRate, channels: parsed.channels) } catch {
            throw .encoding("cannot encode \(path) as MP3: \(error)")
        }
        keep(mp3, at: mp3Path(forWAV: path))
        return mp3
    }

    /// Writes the MP3 beside the WAV, whole or not at all (a temporary file renamed into place, so
    /// two first requests at once never serve half a file). A failure only costs a later re-encode.
    private static func keep(_ mp3: [UInt8], at path: String) {
        let temporary = path + ".tmp-" + SecureRandom.hex(byteCount: 6)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return Log.warning(.platform, "cannot keep the MP3 of a recording at \(path): errno \(errno)") }
        var written = 0
        while written < mp3.count {
            let n = mp3.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            written += n
        }
        close(fd)
        guard written == mp3.count, rename(temporary, path) == 0 else {
            Log.warning(.platform, "cannot keep the MP3 of a recording at \(path): errno \(errno)")
            unlink(temporary)
            return
        }
    }

    /// Removes the recording's WAV and its MP3, if they exist.
    package static func removeFiles(of recording: RecordingRecord) {
        for path in [recording.filePath, mp3Path(forWAV: recording.filePath)] {
            if unlink(path) != 0, errno != ENOENT {
                Log.warning(.platform, "recording \(recording.sid): cannot remove \(path): errno \(errno)")
            }
        }
    }
}
