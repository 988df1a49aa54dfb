import Foundation
import ParleyVideo
import Synchronization
import VideoCore

/// What a participant receives, one recorder per remote track: with a directory,
/// `<identity>-<track name>.wav` for audio and `.y4m` for video (plus numbered PNG snapshots on
/// request); without one, video recorders only keep their latest frame (the demo's mosaic).
final class RemoteTrackRecorders: Sendable {
    let directory: String?
    private struct State {
        var audio: [(name: String, recorder: AudioTrackRecorder)] = []
        var video: [(name: String, identity: String, recorder: VideoTrackRecorder)] = []
        var snapshots = 0
    }
    private let state = Mutex(State())

    /// Creates `directory` (and its parents) when given.
    init(directory: String?) throws {
        self.directory = directory
        if let directory { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
    }

    /// `bob-camera`: identity and track name, with anything but letters, digits, `-`, `_` and `.`
    /// replaced by `_` (a track name may hold `/`).
    static func baseName(identity: String, track: String) -> String {
        let safe = track.map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "_" }
        return identity + "-" + String(safe.prefix(100))
    }

    /// Starts recording a track just subscribed to; returns the file it writes, if any.
    /// `onFirstFrame` gets a video track's first decoded frame.
    func attach(_ publication: RemoteTrackPublication, of participant: RemoteParticipant,
                onFirstFrame: @escaping @Sendable (I420Frame) -> Void) throws -> String? {
        let base = Self.baseName(identity: participant.identity, track: publication.trackName)
        if let audio = publication.remoteAudioTrack, let directory {
            let path = unique(directory + "/" + base, extension: "wav")
            let recorder = try AudioTrackRecorder(path: path)
            audio.addSink(recorder)
            state.withLock { $0.audio.append((base, recorder)) }
            return path
        }
        if let video = publication.remoteVideoTrack {
            let path = directory.map { unique($0 + "/" + base, extension: "y4m") }
            let recorder = try VideoTrackRecorder(path: path, onFirstFrame: onFirstFrame)
            video.addRenderer(recorder)
            state.withLock { $0.video.append((base, participant.identity, recorder)) }
            return path
        }
        return nil
    }

    /// `base.ext`, or `base-2.ext`… when a track of that name was recorded before (resubscribed).
    private func unique(_ base: String, extension ext: String) -> String {
        var path = "\(base).\(ext)", counter = 1
        while fileExists(path) {
            counter += 1
            path = "\(base)-\(counter).\(ext)"
        }
        return path
    }

    /// Every video track's latest frame as `<identity>-<track>-<n>.png`; the paths written.
    func writeSnapshots() -> [String] {
        guard let directory else { return [] }
        let (video, number) = state.withLock { s -> ([(name: String, identity: String, recorder: VideoTrackRecorder)], Int) in
            s.snapshots += 1
            return (s.video, s.snapshots)
        }
        return video.compactMap { track in
            let path = directory + "/" + track.name + String(format: "-%04d.png", number)
            return (try? track.recorder.snapshot(to: path)) == true ? path : nil
        }
    }

    /// The latest frame of each remote video track, by publisher identity, in subscription order.
    var latestFrames: [(identity: String, frame: I420Frame)] {
        state.withLock { $0.video }.compactMap { track in track.recorder.latestFrame.map { (track.identity, $0) } }
    }

    /// When the first frame of any remote video track came.
    var firstFrameAt: ContinuousClock.Instant? { state.withLock { $0.video }.compactMap(\.recorder.firstFrameAt).min() }

    /// Remote video tracks seen.
    var videoTrackCount: Int { state.withLock { $0.video.count } }

    /// Frames decoded across all remote video tracks.
    var framesReceived: Int { state.withLock { $0.video }.reduce(0) { $0 + $1.recorder.framesReceived } }

    /// Closes every file; one summary line per track (`bob-camera.y4m: 120 frames, 640x360`).
    func close() -> [String] {
        let (audio, video) = state.withLock { ($0.audio, $0.video) }
        return audio.map { "\($0.recorder.path): \($0.recorder.close())" }
            + video.map { "\($0.recorder.path ?? $0.name): \($0.recorder.close())" }
    }
}
