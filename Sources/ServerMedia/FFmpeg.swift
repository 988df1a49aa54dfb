import Foundation
import ParleyCore
import Synchronization

/// The `ffmpeg` program (Debian's, from `scripts/install-deps`) as recordings and compositions
/// use it: a finished track's Ogg Opus or IVF file remuxed into Matroska without decoding
/// (`-c copy`), and compositions rendered from a `MediaComposition`. Outputs are written beside
/// their final name, mode 0600, and renamed into place once whole.
package struct FFmpeg: Sendable {
    package let executable: String
    /// Helper runs end with their group (the server's shutdown kills them).
    package let group: SubprocessGroup

    /// The `ffmpeg` on `PATH` (or at `path`); nil when there is none.
    package init?(path: String? = nil, group: SubprocessGroup = SubprocessGroup()) {
        guard let found = path.flatMap({ FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil })
                ?? (path == nil ? Subprocess.findInPath("ffmpeg") : nil) else { return nil }
        executable = found
        self.group = group
    }

    /// Copies the streams of `input` into a Matroska file at `output` (audio-only gives the
    /// `.mka` flavour). Returns its size in bytes.
    package func remuxToMatroska(_ input: String, output: String, timeout: Duration = .seconds(120)) async throws(MediaError) -> Int64 {
        try await run(["-i", input, "-map", "0", "-c", "copy", "-f", "matroska"], output: output, timeout: timeout)
    }

    /// Renders `composition` into `output`. Returns its size in bytes. `progress` gets the media
    /// seconds written so far as ffmpeg reports them (`-progress`, twice a second, and at the
    /// end), all before this returns.
    package func render(_ composition: MediaComposition, output: String, timeout: Duration,
                        progress: (@Sendable (FFmpegProgressReader.Progress) -> Void)? = nil) async throws(MediaError) -> Int64 {
        try await run(composition.arguments(), output: output, timeout: timeout, progress: progress)
    }

    /// The duration `ffprobe` (beside `ffmpeg`) reads in a media file's container, in seconds.
    package func duration(of path: String) async -> Double? {
        let probe = (executable as NSString).deletingLastPathComponent + "/ffprobe"
        guard FileManager.default.isExecutableFile(atPath: probe),
              let outcome = await Subprocess.run(probe, arguments: ["-v", "error", "-show_entries", "format=duration",
                                                                    "-of", "default=noprint_wrappers=1:nokey=1", path],
                                                 timeout: .seconds(30), group: group), outcome.succeeded else { return nil }
        return Double(String(decoding: outcome.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs ffmpeg with `arguments` (inputs, filters, codecs, format) writing a temporary file
    /// that becomes `output`.
    private func run(_ arguments: [String], output: String, timeout: Duration,
                     progress: (@Sendable (FFmpegProgressReader.Progress) -> Void)? = nil) async throws(MediaError) -> Int64 {
        let temporary = output + ".part"
        // Made here with mode 0600: ffmpeg overwrites it in place and keeps the mode.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MediaError(.internalFailure, "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        let reporting = progress == nil ? [] : ["-progress", "pipe:1"]
        let all = ["-nostdin", "-hide_banner", "-nostats", "-loglevel", "error", "-y"] + reporting + arguments + [temporary]
        let reader = progress.map { report in
            let state = Mutex(FFmpegProgressReader())
            return { @Sendable (bytes: [UInt8]) in
                for block in state.withLock({ $0.feed(bytes) }) { report(block) }
            }
        }
        guard let outcome = await Subprocess.run(executable, arguments: all, timeout: timeout, group: group, onStdout: reader) else {
            unlink(temporary)
            throw MediaError(.internalFailure, "cannot run \(executable)")
        }
        guard outcome.succeeded else {
            unlink(temporary)
            let why = outcome.killed ? "stopped after \(timeout) or at shutdown" : "status \(outcome.status)"
            throw MediaError(.internalFailure, "ffmpeg failed (\(why))\(outcome.firstErrorLine.map { ": " + $0 } ?? "")")
        }
        var info = stat()
        guard stat(temporary, &info) == 0, info.st_size > 0, rename(temporary, output) == 0 else {
            unlink(temporary)
            throw MediaError(.internalFailure, "ffmpeg wrote nothing to \(output)")
        }
        return Int64(info.st_size)
    }
}
