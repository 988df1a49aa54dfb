import AccessToken
import AudioCore
import AudioDevices
import Foundation
import Glibc
import ParleyCore
import ParleyServer
import ParleyTestSupport
import ParleyVideo
import Synchronization
import Testing
import VideoCore

/// `parley room join` as a process in a room with an SDK participant of this process, on an
/// in-process server: it records the participant's tone as a WAV at its frequency and its test
/// pattern as a Y4M at its size (plus PNG snapshots), sends its own tone, pattern and a data
/// message the participant receives, and exits 0 at the end of --duration; SIGINT leaves the
/// room (exit 130); a token the server refuses exits 1 with the error's code.
@Suite(.serialized, .tags(.process)) struct RoomJoinTests {
    /// The SDK participant's side: frames of the CLI's video, messages of its data track.
    final class Peer: RoomDelegate, RemoteParticipantDelegate, RemoteDataTrackDelegate, VideoRenderer {
        let seen = Mutex<(frames: Int, messages: [String])>((0, []))
        func roomDidConnect(room: Room) { for participant in room.remoteParticipants { participant.delegate = self } }
        func roomDidFailToConnect(room: Room, error: ParleyError) {}
        func roomDidDisconnect(room: Room, error: ParleyError?) {}
        func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }
        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            publication.remoteVideoTrack?.addRenderer(self)
            publication.remoteDataTrack?.delegate = self
        }
        func renderFrame(_ frame: I420Frame) { seen.withLock { $0.frames += 1 } }
        func remoteDataTrack(_ track: RemoteDataTrack, didReceiveString message: String) { seen.withLock { $0.messages.append(message) } }
    }

    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-room-\(UUID().uuidString)").path
    }

    static func token(_ platform: InProcessPlatform, _ identity: String, room: String) throws -> String {
        try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: room))])
    }

    @Test(.timeLimit(.minutes(1))) func joinRecordsAnSDKParticipantsToneAndPicture() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = "cli-test-\(platform.server.port)"
        Video.servers[edge] = platform.baseURL
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let peer = Peer()
        let camera = PacedVideoSource(TestPattern(width: 320, height: 180, framesPerSecond: 15))
        let microphone = try ToneAudioDevice(frequency: 660, levelDBFS: -12)
        let room = try await Video.connect(ConnectOptions(token: try Self.token(platform, "sdk", room: "cli-room")) {
            $0.roomName = "cli-room"
            $0.edge = edge
            $0.audioTracks = [LocalAudioTrack(name: "mic", device: microphone)]
            $0.videoTracks = [LocalVideoTrack(name: "camera", source: camera)]
        }, delegate: peer)
        defer { room.disconnect() }

        let cli = try CLIProcess.start(try CLITestBed.parley, [
            "room", "join", "cli-room", "--server", platform.baseURL, "--token", try Self.token(platform, "carol", room: "cli-room"),
            "--tone", "440", "--video", "testsrc", "--video-size", "320x180", "--fps", "15", "--record-dir", directory,
            "--snapshot-every", "1", "--send-data", "hello from the CLI", "--duration", "4"])
        let status = await cli.exitStatus(timeout: .seconds(25))
        let output = cli.output
        #expect(status == 0, "\(output)")
        for line in ["connected to room cli-room", "participant sdk", "subscribed to sdk's audio track mic",
                     "subscribed to sdk's video track camera", "first frame of sdk's camera: 320x180", "published camera",
                     "sent data: hello from the CLI", "leaving (--duration)", "room: disconnected"] {
            #expect(output.contains(line), "the output lacks \(line): \(output)")
        }

        let wav = try WAVFile(contentsOfFile: directory + "/sdk-mic.wav")
        #expect(wav.sampleRate == 48_000 && wav.channels == 1)
        #expect(wav.samples.count >= 96_000, "\(wav.samples.count) samples")
        let heard = ToneAudio.dominantFrequency(wav.samples.suffix(24_000).map { Double($0) / 32_768 })
        #expect(abs(heard - 660) < 15, "the recording's tone is at \(heard) Hz")

        var reader = try Y4MReader(source: try FileByteSource(path: directory + "/sdk-camera.y4m"))
        #expect(reader.header.width == 320 && reader.header.height == 180)
        #expect(reader.header.frameRate == FrameRate(framesPerSecond: 15), "the Y4M says \(reader.header.frameRate)")
        var frame = I420Frame(width: 320, height: 180), frames = 0
        while try reader.produce(into: &frame) { frames += 1 }
        #expect(frames >= 25, "the Y4M holds \(frames) frames")
        let png = try Data(contentsOf: URL(fileURLWithPath: directory + "/sdk-camera-0001.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "not a PNG")

        let (decoded, messages) = peer.seen.withLock { ($0.frames, $0.messages) }
        #expect(decoded >= 15, "the SDK participant decoded \(decoded) frames of the CLI's pattern")
        #expect(messages.contains("hello from the CLI"), "the SDK participant received \(messages)")
    }

    @Test(.timeLimit(.minutes(1))) func interruptLeavesTheRoom() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let cli = try CLIProcess.start(try CLITestBed.parley, [
            "room", "join", "quiet", "--server", platform.baseURL, "--token", try Self.token(platform, "carol", room: "quiet")])
        try await cli.waitForOutput("connected to room quiet", timeout: .seconds(15))
        cli.signal(SIGINT)
        #expect(await cli.exitStatus(timeout: .seconds(8)) == 130)
        #expect(cli.output.contains("SIGINT: disconnecting") && cli.output.contains("room: disconnected"), "\(cli.output)")
    }

    @Test(.timeLimit(.minutes(1))) func refusedTokenExitsOneWithItsCode() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let cli = try CLIProcess.start(try CLITestBed.parley, ["room", "join", "quiet", "--server", platform.baseURL,
                                                               "--token", "not-a-jwt", "--duration", "5"])
        #expect(await cli.exitStatus(timeout: .seconds(15)) == 1)
        #expect(cli.output.contains("failed to connect: 20101"), "\(cli.output)")
    }
}
