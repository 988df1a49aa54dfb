import AudioCore

/// The recorder's file: AudioCore's streaming 16-bit WAV writer (sizes patched on close), with
/// its errors reported as `MediaError`. Created mode 0600: recordings are private, like the store.
final class WAVStreamWriter {
    private let file: WAVFileWriter

    init(path: String, sampleRate: Int, channels: Int) throws(MediaError) {
        do { file = try WAVFileWriter(path: path, sampleRate: sampleRate, channels: channels, mode: 0o600) } catch {
            throw MediaError(.internalFailure, "cannot create the recording: \(error)")
        }
    }

    var channels: Int { file.channels }
    /// Samples written so far (all channels).
    var samplesWritten: Int { file.samplesWritten }

    /// Appends interleaved samples.
    func append(_ samples: UnsafeBufferPointer<Int16>) throws(MediaError) {
        do { try file.append(samples) } catch { throw MediaError(.internalFailure, "cannot write the recording: \(error)") }
    }

    /// Writes what is buffered, patches the header sizes and closes the file.
    func close() throws(MediaError) {
        do { try file.close() } catch { throw MediaError(.internalFailure, "cannot close the recording: \(error)") }
    }
}
