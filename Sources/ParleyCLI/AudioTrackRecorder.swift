import AudioCore
import Foundation
import ParleyVideo
import Synchronization

/// A remote audio track's sink that appends what it plays to a WAV file (16-bit PCM, mono,
/// 48 kHz, as the track delivers it). Write errors stop the recording and are kept for the summary.
final class AudioTrackRecorder: AudioSink {
    let path: String
    private struct State {
        var writer: WAVFileWriter?
        var error: String?
    }
    private let state: Mutex<State>

    init(path: String) throws(AudioDeviceError) {
        self.path = path
        state = Mutex(State(writer: try WAVFileWriter(path: path, sampleRate: 48_000, channels: 1)))
    }

    func renderSamples(_ samples: [Int16], sampleRate: Int) {
        state.withLock { s in
            guard let writer = s.writer else { return }
            do throws(AudioDeviceError) {
                try samples.withUnsafeBufferPointer { (buffer) throws(AudioDeviceError) in try writer.append(buffer) }
            } catch {
                s.error = error.description
                try? writer.close()
                s.writer = nil
            }
        }
    }

    /// Finishes the file; returns a one-line summary (`2.40 s`, or the write error).
    func close() -> String {
        state.withLock { s in
            let seconds = Double(s.writer?.samplesWritten ?? 0) / 48_000
            do throws(AudioDeviceError) { try s.writer?.close() } catch { s.error = s.error ?? error.description }
            s.writer = nil
            if let error = s.error { return "not complete: \(error)" }
            return String(format: "%.2f s of audio", seconds)
        }
    }
}
