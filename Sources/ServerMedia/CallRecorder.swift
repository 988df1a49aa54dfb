import ParleyCore
import Synchronization

/// Records call audio from the transport's taps into a 16-bit PCM WAV file, streamed to disk.
///
/// - One leg (`<Record>`, the caller's voice) or two (a bridged call's `record-from-answer`):
///   `.mono` mixes the legs into one channel, `.dual` puts leg 0 left and leg 1 right, as
///   Twilio's dual-channel recordings do.
/// - 8 kHz by default, like Twilio's recordings (mono WAV at 8 kHz); 16 kHz (or 48 kHz) is one
///   setting away. Opus is decoded straight at that rate; G.711 is upsampled when it is not 8 kHz.
/// - Each leg reorders within `reorderWindow` packets and conceals losses (`RecordingLeg`); legs
///   are aligned by the arrival time of their first packet, then by their RTP timestamps.
/// - `maximumSeconds` (TwiML `maxLength`, 3600 s by default) cuts the file and calls `onLimit`.
/// - `status(now:)` reports the trailing silence (level below `silenceThresholdDBFS`, or no packets)
///   and the last level, for `<Record timeout>`; the engine decides when to `finish()`.
///
/// `receive` may be called from the taps of both legs on different threads. It decodes (a few
/// tens of µs per packet) and writes through a 64 KiB buffer, so a disk write happens every few
/// seconds of audio.
public final class CallRecorder: Sendable {
    public enum Layout: String, Sendable {
        case mono, dual
    }

    public struct Configuration: Sendable {
        /// 8000 (Twilio's), 16000 or 48000.
        public var sampleRate: Int
        public var layout: Layout
        public var maximumSeconds: Double
        /// Frames below this RMS level count as silence.
        public var silenceThresholdDBFS: Double
        /// Packets held for reordering before a missing one is declared lost.
        public var reorderWindow: Int
        /// How far one leg may lag the other before it is filled with silence.
        public var maximumLegLagSeconds: Double

        public init(sampleRate: Int = 8_000, layout: Layout = .mono, maximumSeconds: Double = 3_600,
                    silenceThresholdDBFS: Double = -45, reorderWindow: Int = 5, maximumLegLagSeconds: Double = 1) {
            self.sampleRate = sampleRate
            self.layout = layout
            self.maximumSeconds = maximumSeconds
            self.silenceThresholdDBFS = silenceThresholdDBFS
            self.reorderWindow = reorderWindow
            self.maximumLegLagSeconds = maximumLegLagSeconds
        }
    }

    public struct Status: Sendable, Equatable {
        /// Seconds recorded so far.
        public var duration: Double
        /// Seconds of silence at the end of what was received, plus the time since the last packet.
        public var trailingSilence: Double
        /// RMS level of the last decoded frame in dBFS.
        public var levelDBFS: Double
        public var reachedMaximumLength: Bool
        public var packets: Int
        public var lostPackets: Int
    }

    public struct Recording: Sendable, Equatable {
        public var path: String
        public var duration: Double
        public var sampleRate: Int
        public var channels: Int
        public var frames: Int
    }

    public let path: String
    public let configuration: Configuration
    private let state: Mutex<State>
    private let onLimit: (@Sendable () -> Void)?

    private struct State {
        var legs: [RecordingLeg]
        var timeline: RecordingTimeline
        var writer: WAVStreamWriter
        var startMicroseconds: Int64?
        var lastArrival: [Int64?]
        var trailingSilent: [Int]
        var levelDBFS = -Double.infinity
        var limitReported = false
        var result: Recording?
        var failure: MediaError?
    }

    /// Creates (or truncates) the file at `path`. `startMicroseconds` is when the recording begins
    /// on the taps' clock (audio before a leg's first packet is silence); nil starts it at the
    /// first packet. `legs` is 1 or 2 (`.dual` always has 2).
    public init(path: String, configuration: Configuration = Configuration(), legs: Int = 1,
                startMicroseconds: Int64? = nil, onLimit: (@Sendable () -> Void)? = nil) throws(MediaError) {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(configuration.sampleRate) else {
            throw MediaError(.invalidInput, "recording rate \(configuration.sampleRate) Hz (8, 12, 16, 24 or 48 kHz)")
        }
        let legCount = configuration.layout == .dual ? 2 : min(max(legs, 1), 2)
        let channels = configuration.layout == .dual ? 2 : 1
        let rate = configuration.sampleRate
        let writer = try WAVStreamWriter(path: path, sampleRate: rate, channels: channels)
        let timeline = RecordingTimeline(legs: legCount, channels: channels,
                                         maximumLag: Int(configuration.maximumLegLagSeconds * Double(rate)),
                                         maximumFrames: Int(max(0, configuration.maximumSeconds) * Double(rate)))
        let recorderLegs = (0..<legCount).map { _ in RecordingLeg(rate: rate, window: configuration.reorderWindow) }
        state = Mutex(State(legs: recorderLegs, timeline: timeline, writer: writer, startMicroseconds: startMicroseconds,
                            lastArrival: Array(repeating: nil, count: legCount),
                            trailingSilent: Array(repeating: 0, count: legCount)))
        self.path = path
        self.configuration = configuration
        self.onLimit = onLimit
    }

    /// Takes one tapped packet of `leg` (0 or 1) that arrived at `arrivalMicroseconds` (any
    /// monotonic clock, the same for every call). Ignored after `finish()`.
    public func receive(_ packet: TappedAudioPacket, leg: Int = 0, arrivalMicroseconds: Int64) {
        let rate = configuration.sampleRate
        let threshold = configuration.silenceThresholdDBFS
        let reportLimit = state.withLock { s -> Bool in
            guard s.result == nil, s.failure == nil, s.legs.indices.contains(leg) else { return false }
            let start = s.startMicroseconds ?? arrivalMicroseconds
            s.startMicroseconds = start
            s.lastArrival[leg] = arrivalMicroseconds
            let position = Int(max(0, arrivalMicroseconds - start) * Int64(rate) / 1_000_000)
            var timeline = s.timeline
            var silent = s.trailingSilent[leg]
            var level = s.levelDBFS
            s.legs[leg].receive(packet, position: position) { output, samples in
                timeline.write(leg: leg, position: output.position, count: output.count, samples: samples)
                if output.audible {
                    level = MediaAudio.levelDBFS(samples)
                    silent = level < threshold ? silent + output.count : 0
                } else {
                    silent += output.count
                }
            }
            s.trailingSilent[leg] = silent
            s.levelDBFS = level
            do throws(MediaError) {
                try timeline.flush(all: false, to: s.writer)
            } catch {
                s.failure = error
                Log.error(.platform, "recording \(path): \(error)")
            }
            s.timeline = timeline
            guard !s.limitReported, timeline.frames >= timeline.maximumFrames else { return false }
            s.limitReported = true
            return true
        }
        if reportLimit { onLimit?() }
    }

    /// Where the recording stands at `nowMicroseconds` (on the taps' clock; nil leaves out the
    /// time since the last packet).
    public func status(nowMicroseconds: Int64? = nil) -> Status {
        let rate = Double(configuration.sampleRate)
        return state.withLock { s in
            let started = s.legs.indices.filter { s.lastArrival[$0] != nil }
            var silence = Double.infinity
            for leg in started {
                var seconds = Double(s.trailingSilent[leg]) / rate
                if let now = nowMicroseconds, let last = s.lastArrival[leg] { seconds += Double(max(0, now - last)) / 1e6 }
                silence = min(silence, seconds)
            }
            if started.isEmpty {
                silence = nowMicroseconds.flatMap { now in s.startMicroseconds.map { Double(max(0, now - $0)) / 1e6 } } ?? 0
            }
            return Status(duration: Double(s.timeline.frames) / rate, trailingSilence: silence, levelDBFS: s.levelDBFS,
                          reachedMaximumLength: s.timeline.frames >= s.timeline.maximumFrames,
                          packets: s.legs.reduce(0) { $0 + $1.packets }, lostPackets: s.legs.reduce(0) { $0 + $1.lostPackets })
        }
    }

    /// Plays out the reorder buffers, writes the rest, fixes the WAV header and closes the file.
    /// Returns the same recording when called again.
    public func finish() throws(MediaError) -> Recording {
        let rate = configuration.sampleRate
        let outcome: Result<Recording, MediaError> = state.withLock { s in
            if let result = s.result { return .success(result) }
            if let failure = s.failure { return .failure(failure) }
            var timeline = s.timeline
            for leg in s.legs.indices {
                s.legs[leg].flush { output, samples in
                    timeline.write(leg: leg, position: output.position, count: output.count, samples: samples)
                }
            }
            do throws(MediaError) {
                try timeline.flush(all: true, to: s.writer)
                try s.writer.close()
            } catch {
                s.failure = error
                return .failure(error)
            }
            s.timeline = timeline
            let frames = s.writer.samplesWritten / s.writer.channels
            let result = Recording(path: path, duration: Double(frames) / Double(rate), sampleRate: rate,
                                   channels: s.writer.channels, frames: frames)
            s.result = result
            return .success(result)
        }
        return try outcome.get()
    }
}
