import AudioCore
import AudioDevices
import Foundation
import ParleyCore
import ParleyVideo

/// `parley room join NAME`: the video SDK as a room participant on the command line. It
/// publishes what it is given (a WAV file or a tone, a test pattern or a video file, a data
/// message), prints the room's events as they happen and records each remote track it receives.
enum RoomCommand {
    static func run(_ args: [String], environment: [String: String]) throws -> Int32 {
        guard let sub = args.first else { throw UsageError("room: expected join or devices") }
        switch sub {
        case "join": return try join(Array(args.dropFirst()), environment: environment)
        case "devices": return try RoomCamera.listDevices(Array(args.dropFirst()))
        default: throw UsageError("room: unknown subcommand \(sub) (expected join or devices)")
        }
    }

    static func join(_ args: [String], environment: [String: String]) throws -> Int32 {
        let options = try RoomJoinOptions(args, environment: environment)
        let audioTracks = try audioTracks(options.audio)
        let recorders = try RemoteTrackRecorders(directory: options.recordDirectory)
        let console = RoomConsole(name: "room", recorders: recorders, dataMessage: options.dataMessage)
        Video.servers = ["cli": options.server]
        Video.edge = "cli"
        let connect = ConnectOptions(token: options.token) {
            $0.roomName = options.roomName
            $0.audioTracks = audioTracks
            $0.videoTracks = options.video.map { [LocalVideoTrack(name: "camera", source: $0.source)] } ?? []
            $0.dataTracks = options.dataMessage == nil ? [] : [LocalDataTrack(name: "data")]
            $0.isDominantSpeakerEnabled = true
            $0.isNetworkQualityEnabled = true
            $0.networkQualityConfiguration = NetworkQualityConfiguration(localVerbosity: .minimal, remoteVerbosity: .minimal)
            $0.delegateQueue = console.queue
        }
        Interruption.shared.catchSignals()
        return CallCommand.blocking {
            let room = startConnecting(connect, delegate: console)
            console.print("joining room \(options.roomName)" + (options.video.map { " with video: \($0.description)" } ?? ""))
            let status = await stay(in: room, console: console, options: options)
            for line in recorders.close() { console.print("recorded \(line)") }
            return status
        }
    }

    /// `Video.connect` that returns the room at once (in async code the name alone picks the
    /// overload that waits for the connection).
    static func startConnecting(_ options: ConnectOptions, delegate: RoomConsole) -> Room {
        Video.connect(options: options, delegate: delegate)
    }

    /// `--audio in.wav` (looped) or `--tone HZ` as the published microphone track.
    private static func audioTracks(_ input: RoomJoinOptions.AudioInput?) throws -> [LocalAudioTrack] {
        switch input {
        case .file(let path):
            do { return [LocalAudioTrack(name: "microphone", device: try FileAudioDevice(inputPath: path, outputPath: nil, looping: true))] } catch {
                throw UsageError("--audio \(path): \(error)")
            }
        case .tone(let hertz): return [LocalAudioTrack(name: "microphone", device: try ToneAudioDevice(frequency: hertz))]
        case nil: return []
        }
    }

    /// Connects (within --connect-timeout), stays for --duration from roomDidConnect (or until a
    /// signal or the room ends), snapshots every --snapshot-every, then leaves; the exit status.
    private static func stay(in room: Room, console: RoomConsole, options: RoomJoinOptions) async -> Int32 {
        switch await console.waitForConnect(until: .now + options.connectTimeout) {
        case .connected: break
        case .failed: return 1
        case .interrupted(let signal):
            console.print("\(Interruption.name(of: signal)): disconnecting")
            room.disconnect()
            return Interruption.status(for: signal)
        case .timedOut:
            console.print(String(format: "not connected within --connect-timeout %g s", options.connectTimeout.milliseconds / 1000))
            room.disconnect()
            return 1
        }
        let deadline = options.duration.map { (console.connectedAt ?? .now) + $0 }
        let outcome = await console.hold(until: deadline, every: options.snapshotInterval) {
            for path in console.recorders.writeSnapshots() { console.print("snapshot → \(path)") }
        }
        switch outcome {
        case .ended: return await console.waitForEnd()
        case .elapsed:
            console.print("leaving (--duration)")
            room.disconnect()
            return await console.waitForEnd()
        case .interrupted(let signal):
            console.print("\(Interruption.name(of: signal)): disconnecting")
            room.disconnect()
            _ = await console.waitForEnd()
            return Interruption.status(for: signal)
        }
    }
}
