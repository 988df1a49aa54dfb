import ParleyStore
@testable import RoomService
import ServerMedia
import Testing

/// What a composition is made of: sources chosen by name patterns, regions tiled in grids,
/// start times from the recordings' offsets, trimmed or the room's whole time; and the ffmpeg
/// arguments a `MediaComposition` becomes.
@Suite struct CompositionPlanTests {
    static let room = RoomRecord(sid: "RM1", accountSid: "AC1", uniqueName: "r", type: .group, status: .completed,
                                 endTime: 1_000_030, duration: 30, createdAt: 1_000_000, updatedAt: 1_000_030)

    static func recording(_ name: String, _ kind: TrackKind, offset: Int64, duration: Int64,
                          status: RoomRecordingStatus = .completed) -> RoomRecordingRecord {
        RoomRecordingRecord(sid: "RT" + name, accountSid: "AC1", roomSid: "RM1", participantSid: "PA1", sourceSid: "MT" + name,
                            trackName: name, kind: kind, codec: kind == .audio ? "OPUS" : "VP8",
                            container: kind == .audio ? "mka" : "mkv", status: status, duration: duration, size: 1,
                            offset: offset, filePath: "/r/\(name).\(kind == .audio ? "mka" : "mkv")", createdAt: 1, updatedAt: 1)
    }

    static let recordings = [
        recording("alice-mic", .audio, offset: 1_000_002_000, duration: 10),
        recording("alice-cam", .video, offset: 1_000_002_500, duration: 9),
        recording("bob-mic", .audio, offset: 1_000_005_000, duration: 8),
        recording("bob-cam", .video, offset: 1_000_005_000, duration: 8),
        recording("carol-cam", .video, offset: 1_000_006_000, duration: 2),
        recording("dave-cam", .video, offset: 1_000_001_000, duration: 2, status: .failed),
    ]

    static func composition(layout: String, audio: [String] = ["*"], excluded: [String] = [], trim: Bool = true,
                            resolution: String = "640x480") -> CompositionRecord {
        CompositionRecord(sid: "CJ1", accountSid: "AC1", roomSid: "RM1", audioSources: audio, audioSourcesExcluded: excluded,
                          videoLayout: layout, resolution: resolution, format: "webm", trim: trim, createdAt: 1, updatedAt: 1)
    }

    @Test func aGridOfEveryCameraWithTheMicsMixed() throws {
        let plan = try CompositionPlan.make(Self.composition(layout: #"{"grid":{"video_sources":["*"]}}"#, excluded: ["bob*"]),
                                            room: Self.room, recordings: Self.recordings)
        #expect(plan.audio.map(\.path) == ["/r/alice-mic.mka"])
        // Three completed cameras, oldest first, in a 2x2 grid of 320x240 cells.
        #expect(plan.video.map(\.path) == ["/r/alice-cam.mkv", "/r/bob-cam.mkv", "/r/carol-cam.mkv"])
        #expect(plan.video.map { [$0.x, $0.y, $0.width, $0.height] } == [[0, 0, 320, 240], [320, 0, 320, 240], [0, 240, 320, 240]])
        // From the first media (alice's mic at +2 s) to the last (bob's at +13 s).
        #expect(plan.video.map(\.start) == [0.5, 3, 4] && plan.audio.map(\.start) == [0])
        #expect(plan.duration == 11)
    }

    @Test func regionsPositionsLimitsAndTheRoomsWholeTime() throws {
        let layout = #"{"main": {"z_pos": 1, "max_columns": 1, "max_rows": 1, "video_sources": ["*-cam"]}, "#
            + #""strip": {"z_pos": 2, "x_pos": 0, "y_pos": 600, "height": 120, "max_rows": 1, "reuse": "show_newest", "video_sources": ["bob*", "carol*"]}}"#
        let plan = try CompositionPlan.make(Self.composition(layout: layout, audio: [], trim: false, resolution: "1280x720"),
                                            room: Self.room, recordings: Self.recordings)
        #expect(plan.audio.isEmpty)
        #expect(plan.video.map(\.path) == ["/r/alice-cam.mkv", "/r/carol-cam.mkv", "/r/bob-cam.mkv"])
        #expect(plan.video.map { [$0.x, $0.y, $0.width, $0.height] } == [[0, 0, 1280, 720], [0, 600, 640, 120], [640, 600, 640, 120]])
        // Untrimmed: from the room's creation to its end (30 s).
        #expect(plan.video[0].start == 2.5 && plan.duration == 30)
    }

    @Test func nothingToComposeOrABadLayoutFails() {
        #expect(throws: CompositionPlan.Failure.nothingToCompose) {
            try CompositionPlan.make(Self.composition(layout: "", audio: ["nobody"]), room: Self.room, recordings: Self.recordings)
        }
        #expect(throws: CompositionPlan.Failure.invalidLayout) {
            try CompositionPlan.make(Self.composition(layout: "{bad"), room: Self.room, recordings: Self.recordings)
        }
    }

    @Test func theFFmpegArgumentsOfAComposition() {
        var plan = MediaComposition(width: 640, height: 480, duration: 4.25, format: .webm,
                                    video: [.init(path: "/r/a.mkv", start: 0.5, x: 0, y: 0, width: 320, height: 241)],
                                    audio: [.init(path: "/r/a.mka", start: 0), .init(path: "/r/b.mka", start: 1.0625)])
        let arguments = plan.arguments()
        #expect(arguments.prefix(6) == ["-i", "/r/a.mkv", "-i", "/r/a.mka", "-i", "/r/b.mka"])
        let graph = arguments[arguments.firstIndex(of: "-filter_complex")! + 1]
        #expect(graph.contains("color=c=black:s=640x480:r=25:d=4.250[canvas0]"))
        #expect(graph.contains("[0:v]setpts=PTS-STARTPTS+0.500/TB,scale=320:240:"))
        #expect(graph.contains("[canvas0][tile0]overlay=x=0:y=0:eof_action=pass[canvas1]"))
        #expect(graph.contains("[2:a]aresample=48000,adelay=1063:all=1[a1]"))
        #expect(graph.contains("[a0][a1]amix=inputs=2:duration=longest:normalize=0,apad=whole_dur=4.250,atrim=0:4.250[aout]"))
        #expect(arguments.suffix(2) == ["-f", "webm"] && arguments.contains("libvpx") && arguments.contains("libopus"))
        plan.format = .mp4
        plan.video = []
        let audioOnly = plan.arguments()
        #expect(!audioOnly.contains("[vout]") && audioOnly.contains("aac") && !audioOnly.contains("libx264"))
        #expect(audioOnly.suffix(4) == ["-movflags", "+faststart", "-f", "mp4"])
    }
}
