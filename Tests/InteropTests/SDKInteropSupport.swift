import AccessToken
import AudioCore
import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import ParleyVideo
import Synchronization
import VideoCore

/// One ParleyVideo SDK participant of an interop test, joined with `Video.connect`: it keeps, per
/// remote identity, what each remote video track decoded (`Screen`) and each remote audio track
/// played (`Capture`), and when it joined, connected and decoded its first remote frame.
final class SDKPeer: RoomDelegate, RemoteParticipantDelegate {
    /// Frames a remote video track rendered: count, the sizes seen (each change with its time), the
    /// test pattern's frame numbers when the picture is one.
    final class Screen: VideoRenderer {
        struct Seen {
            var frames = 0
            var numbers: [UInt32] = []
            /// The width of the frame each number was read from (a smaller simulcast layer's picture
            /// holds the code scaled down, which reads as another number).
            var numberWidths: [Int] = []
            var sizes: [String: Int] = [:]
            /// Each change of the decoded size: when (since `origin`), width, height.
            var changes: [(seconds: Double, width: Int, height: Int)] = []
            var last: (width: Int, height: Int)?
        }
        let seen = Mutex(Seen())
        let origin: ContinuousClock.Instant
        let onFrame: @Sendable () -> Void

        init(origin: ContinuousClock.Instant, onFrame: @escaping @Sendable () -> Void = {}) {
            self.origin = origin
            self.onFrame = onFrame
        }

        func renderFrame(_ frame: I420Frame) {
            let number = TestPattern.frameNumber(in: frame)
            let now = ContinuousClock.now
            seen.withLock {
                $0.frames += 1
                if let number {
                    $0.numbers.append(number)
                    $0.numberWidths.append(frame.width)
                }
                $0.sizes["\(frame.width)x\(frame.height)", default: 0] += 1
                if $0.last?.width != frame.width || $0.last?.height != frame.height {
                    $0.last = (frame.width, frame.height)
                    $0.changes.append(((now - origin).seconds, frame.width, frame.height))
                }
            }
            onFrame()
        }
        func updateVideoSize(width: Int, height: Int) {}
        var frames: Int { seen.withLock { $0.frames } }
    }

    /// Samples a remote audio track played (48 kHz mono, 20 ms at a time).
    final class Capture: AudioSink {
        let samples = Mutex<[Int16]>([])
        func renderSamples(_ frame: [Int16], sampleRate: Int) { samples.withLock { $0 += frame } }
        var count: Int { samples.withLock { $0.count } }
    }

    struct Times {
        var connected: ContinuousClock.Instant?
        var firstFrame: ContinuousClock.Instant?
        var failure: ParleyError?
    }

    let identity: String
    let joinedAt = ContinuousClock.now
    let times = Mutex(Times())
    let screens = Mutex<[String: Screen]>([:])
    let captures = Mutex<[String: Capture]>([:])
    private let roomBox = Mutex<Room?>(nil)

    private init(identity: String) { self.identity = identity }

    /// Joins `room` on `edge` as `identity` (a video grant for that room), publishing `audio` and
    /// `video` when given (VP8 in three simulcast layers when `simulcast`).
    static func join(edge: String, server: PlatformServer, identity: String, room: String, audio: (any AudioDevice)? = nil,
                     video: (any VideoSource)? = nil, simulcast: Bool = false) throws -> SDKPeer {
        let token = try InProcessPlatform.token(server, identity: identity, grants: [.video(VideoGrant(room: room))])
        let peer = SDKPeer(identity: identity)
        let options = ConnectOptions(token: token) { builder in
            builder.roomName = room
            builder.edge = edge
            if let audio { builder.audioTracks = [LocalAudioTrack(name: "mic", device: audio)] }
            if let video { builder.videoTracks = [LocalVideoTrack(name: "camera", source: video)] }
            builder.preferredVideoCodecs = [.vp8(simulcast: simulcast)]
        }
        let room = Video.connect(options: options, delegate: peer)
        peer.roomBox.withLock { $0 = room }
        return peer
    }

    var room: Room? { roomBox.withLock { $0 } }
    func screen(_ identity: String) -> Screen? { screens.withLock { $0[identity] } }
    func capture(_ identity: String) -> Capture? { captures.withLock { $0[identity] } }

    /// join → roomDidConnect, and join → the first remote frame decoded, in milliseconds.
    var connectMilliseconds: Double? { times.withLock { $0.connected }.map { ($0 - joinedAt).milliseconds } }
    var firstFrameMilliseconds: Double? { times.withLock { $0.firstFrame }.map { ($0 - joinedAt).milliseconds } }

    func disconnect() { room?.disconnect() }

    // MARK: delegates

    func roomDidConnect(room: Room) {
        times.withLock { $0.connected = .now }
        for participant in room.remoteParticipants { participant.delegate = self }
    }
    func roomDidFailToConnect(room: Room, error: ParleyError) { times.withLock { $0.failure = error } }
    func roomDidDisconnect(room: Room, error: ParleyError?) {}
    func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }

    func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
        if let track = publication.remoteVideoTrack {
            let screen = Screen(origin: joinedAt) { [weak self] in self?.times.withLock { if $0.firstFrame == nil { $0.firstFrame = .now } } }
            track.addRenderer(screen)
            screens.withLock { $0[participant.identity] = screen }
        }
        if let track = publication.remoteAudioTrack {
            let capture = Capture()
            track.addSink(capture)
            captures.withLock { $0[participant.identity] = capture }
        }
    }
}

extension SDKPeer {
    /// Polls `condition` every 20 ms until it holds or `timeout` passes; true when it held.
    static func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// The dominant frequency (Hz) of the last `seconds` of what `identity`'s audio played, and its
    /// RMS level (0–1); nil before that much came.
    func heard(_ identity: String, seconds: Double = 0.5) -> (frequency: Double, rms: Double)? {
        guard let samples = capture(identity)?.samples.withLock({ $0 }), samples.count >= Int(seconds * 48_000) else { return nil }
        let tail = samples.suffix(Int(seconds * 48_000)).map { Double($0) / 32_768 }
        let rms = (tail.reduce(0) { $0 + $1 * $1 } / Double(tail.count)).squareRoot()
        return (ToneAudio.dominantFrequency(Array(tail)), rms)
    }
}

/// join → roomDidConnect and join → first remote frame, over the SDK participants of the interop
/// runs in this process, printed as p50s (the issue's figures).
enum SDKJoinFigures {
    static let samples = Mutex<(connect: [Double], firstFrame: [Double])>(([], []))

    /// Adds `peer`'s figures and prints the p50s so far.
    static func record(_ peer: SDKPeer, label: String) {
        let connect = peer.connectMilliseconds, frame = peer.firstFrameMilliseconds
        let (connects, frames) = samples.withLock { s in
            if let connect { s.connect.append(connect) }
            if let frame { s.firstFrame.append(frame) }
            return (s.connect, s.firstFrame)
        }
        print("SDK join figures (\(label), \(peer.identity)): join → roomDidConnect \(connect.map { "\(Int($0))" } ?? "-") ms, "
              + "→ first remote frame \(frame.map { "\(Int($0))" } ?? "-") ms; p50 so far over \(connects.count) joins "
              + "\(p50(connects)) ms / over \(frames.count) \(p50(frames)) ms")
    }

    static func p50(_ values: [Double]) -> Int {
        guard !values.isEmpty else { return -1 }
        return Int(values.sorted()[values.count / 2])
    }
}

extension InProcessPlatform {
    /// Registers this server in `Video.servers` under an edge name of its own (`Video.servers` is
    /// process-wide and suites run side by side), for `ConnectOptions.edge`.
    var sdkEdge: String {
        let edge = "interop-\(server.port)"
        Video.servers[edge] = baseURL
        return edge
    }

    /// Runs `body` with a started in-process server (its configuration changed by `configure`);
    /// it shuts down after, also on failure.
    static func withServer(configure: (inout ServerConfiguration) -> Void = { _ in },
                           _ body: (InProcessPlatform) async throws -> Void) async throws {
        let platform = try InProcessPlatform.start(identity: "unused", configure: configure)
        do {
            try await body(platform)
        } catch {
            await platform.server.shutdown()
            throw error
        }
        await platform.server.shutdown()
    }
}
