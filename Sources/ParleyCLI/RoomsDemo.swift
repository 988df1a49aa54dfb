import AudioDevices
import Foundation
import ParleyCore
import ParleyVideo
import VideoCore

/// The scripted room of `parley demo rooms`: alice, bob and carol join one after another, each
/// publishing a tone (alice's loudest, so she is the dominant speaker) and a moving test
/// pattern; they stay `seconds` after the last one connected; then the figures and carol's mosaic.
struct RoomsDemo: Sendable {
    static let roomName = "demo-rooms"
    static let cast: [(identity: String, hertz: Double, levelDBFS: Double)] = [
        ("alice", 440, -6), ("bob", 660, -26), ("carol", 880, -26),
    ]
    let tokens: [String]
    let seconds: Duration
    let mosaicPath: String

    /// One participant: its room, console, what it receives and what it sends.
    private struct Member: Sendable {
        let identity: String
        let room: Room
        let console: RoomConsole
        let camera: LatestFrameVideoSource
        let joinedAt: ContinuousClock.Instant
    }

    func run() async -> Int32 {
        let started = ContinuousClock.now
        var members: [Member] = []
        defer { withExtendedLifetime(members.map(\.console)) {} }  // rooms hold their delegates weakly
        for ((identity, hertz, level), token) in zip(Self.cast, tokens) {
            guard let member = await join(identity, hertz: hertz, level: level, token: token, started: started) else {
                await leave(members)
                return Interruption.shared.isRequested ? 130 : 1
            }
            members.append(member)
        }
        let cpuAtStart = ProcessCPUTime.seconds(), wallAtStart = ContinuousClock.now
        let outcome = await members.last!.console.hold(until: .now + seconds)
        let cpu = ProcessCPUTime.seconds() - cpuAtStart, wall = (ContinuousClock.now - wallAtStart).milliseconds / 1000
        if case .interrupted(let signal) = outcome { members.last!.console.print("\(Interruption.name(of: signal)): leaving") }
        let mosaic = writeMosaic(of: members.last!)
        await leave(members)
        guard outcome == .elapsed else { return 1 }
        DemoCommand.section("Figures (each participant's, from its connect call)")
        for member in members { say(figures(of: member)) }
        say(String(format: "CPU of this process (server and three participants: 3 VP8 encoders, 6 decoders, Opus both ways) "
                     + "%.2f s over %.2f s wall: %.0f%% of one core", cpu, wall, 100 * cpu / wall))
        DemoCommand.section("What carol saw")
        say(mosaic)
        say("PESQ-WB skipped: the participants publish tones, not speech")
        return 0
    }

    private func join(_ identity: String, hertz: Double, level: Double, token: String,
                      started: ContinuousClock.Instant) async -> Member? {
        let console: RoomConsole
        let microphone: ToneAudioDevice
        do {
            console = RoomConsole(name: identity, recorders: try RemoteTrackRecorders(directory: nil), started: started)
            microphone = try ToneAudioDevice(frequency: hertz, levelDBFS: level)
        } catch {
            say("\(identity): cannot start: \(error)")
            return nil
        }
        let camera = LatestFrameVideoSource(PacedVideoSource(TestPattern(width: 640, height: 360, framesPerSecond: 30)))
        let options = ConnectOptions(token: token) {
            $0.roomName = Self.roomName
            $0.audioTracks = [LocalAudioTrack(name: "microphone", device: microphone)]
            $0.videoTracks = [LocalVideoTrack(name: "camera", source: camera)]
            $0.isDominantSpeakerEnabled = true
            $0.isNetworkQualityEnabled = true
            $0.networkQualityConfiguration = NetworkQualityConfiguration(localVerbosity: .minimal, remoteVerbosity: .minimal)
            $0.delegateQueue = console.queue
        }
        let joinedAt = ContinuousClock.now
        let room = RoomCommand.startConnecting(options, delegate: console)
        let member = Member(identity: identity, room: room, console: console, camera: camera, joinedAt: joinedAt)
        guard await console.waitForConnect(until: .now + .seconds(20)) == .connected else {
            room.disconnect()
            return nil
        }
        return member
    }

    private func leave(_ members: [Member]) async {
        for member in members.reversed() {
            member.room.disconnect()
            _ = await member.console.waitForEnd()
        }
    }

    /// `carol: join → roomDidConnect 84.1 ms, → first remote frame 412.9 ms; 2 video tracks, 431 frames decoded`.
    private func figures(of member: Member) -> String {
        let recorders = member.console.recorders
        let connect = member.console.connectedAt.map { String(format: "%.1f ms", ($0 - member.joinedAt).milliseconds) } ?? "n/a"
        let firstFrame = recorders.firstFrameAt.map { String(format: "%.1f ms", ($0 - member.joinedAt).milliseconds) } ?? "none"
        return "\(member.identity): join → roomDidConnect \(connect), → first remote frame \(firstFrame); "
            + "\(recorders.videoTrackCount) video tracks, \(recorders.framesReceived) frames decoded"
    }

    /// The last frame of each remote video track `member` received, then its own, side by side.
    private func writeMosaic(of member: Member) -> String {
        let remote = member.console.recorders.latestFrames
        let frames = remote.map(\.frame) + (member.camera.latestFrame.map { [$0] } ?? [])
        guard let mosaic = VideoMosaic.compose(frames) else { return "no mosaic: \(member.identity) received no video" }
        var encoder = PNGEncoder()
        do {
            try Data(encoder.encode(mosaic)).write(to: URL(fileURLWithPath: mosaicPath))
        } catch {
            return "cannot write \(mosaicPath): \(error)"
        }
        let who = remote.map(\.identity) + ["\(member.identity) herself"]
        return "mosaic \(mosaic.width)x\(mosaic.height) (\(who.joined(separator: ", "))): \(mosaicPath)"
    }
}
