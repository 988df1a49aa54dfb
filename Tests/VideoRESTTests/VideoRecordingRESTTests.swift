import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import SFU
import Testing
import VideoREST

/// A composer that only stores what it is asked (the room service's queue renders them).
final class CompositionControlTwin: CompositionControl, @unchecked Sendable {
    let store: InMemoryAccountStore
    var full = false

    init(store: InMemoryAccountStore) { self.store = store }

    func createComposition(_ request: CompositionCreateRequest) async throws(ParleyError) -> CompositionRecord {
        guard !full else { throw ParleyError(.tooManyRequests, reason: "queue full") }
        let record = CompositionRecord(sid: SID.make("CJ"), accountSid: request.accountSid, roomSid: request.roomSid,
                                       audioSources: request.audioSources, audioSourcesExcluded: request.audioSourcesExcluded,
                                       videoLayout: request.videoLayout, resolution: request.resolution, format: request.format,
                                       trim: request.trim, statusCallback: request.statusCallback,
                                       statusCallbackMethod: request.statusCallbackMethod, createdAt: 1_700_000_100,
                                       updatedAt: 1_700_000_100)
        try? store.insertComposition(record)
        return record
    }
}

/// The Video v1 recording resources: `/v1/Recordings` and `/v1/Rooms/{RM}/Recordings` (filters,
/// fetch, DELETE), `…/Media` (302 with `redirect_to`, then the bytes at a signed URL that
/// expires), `RecordingRules` (53120 for bad rules), and `/v1/Compositions` (validated create,
/// list, fetch, DELETE, `Media`).
@Suite("VideoRecordingREST")
struct VideoRecordingRESTTests {
    struct Fixture {
        let base: VideoFixture
        let composer: CompositionControlTwin
        let router: VideoRESTRouter
        let clock: Clock
        let directory: String

        final class Clock: @unchecked Sendable {
            var now: Int64 = 1_700_000_500
        }

        init() throws {
            base = try VideoFixture()
            composer = CompositionControlTwin(store: base.store)
            let clock = Clock()
            self.clock = clock
            router = VideoRESTRouter(store: base.store, control: base.twin, compositions: composer,
                                     publicBaseURL: { "https://video.example" }, wallClock: { clock.now })
            directory = NSTemporaryDirectory() + "parley-rest-rec-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        func request(_ method: String, _ target: String, form: [(String, String)] = [], auth: Bool = true) async -> HTTPResponse {
            var headers = HTTPHeaders()
            if auth {
                let credentials = "\(base.account.sid):\(base.account.authToken)"
                headers.set("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())
            }
            var body: [UInt8] = []
            if !form.isEmpty {
                headers.set("Content-Type", "application/x-www-form-urlencoded")
                body = Array(FormURLEncoding.encode(form).utf8)
            }
            let request = HTTPRequest(method: method, target: target, headers: headers, body: body)
            if let refusal = router.admit(request) { return refusal }
            return await router.handle(request)
        }

        func json(_ method: String, _ target: String, form: [(String, String)] = []) async -> (Int, JSONValue) {
            let response = await request(method, target, form: form)
            return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
        }

        /// A completed room with alice's two completed recordings (files with `contents`).
        func recordedRoom() async throws -> (RoomRecord, [RoomRecordingRecord]) {
            let (_, room) = await base.request("POST", "/v1/Rooms", form: [("UniqueName", "daily"), ("RecordParticipantsOnConnect", "true")])
            let sid = try #require(room["sid"]?.string)
            let alice = try base.join(sid, "alice")
            var recordings: [RoomRecordingRecord] = []
            for (i, kind) in [TrackKind.audio, .video].enumerated() {
                let rt = SID.make("RT")
                let path = directory + "/\(rt).\(kind == .audio ? "mka" : "mkv")"
                try Data("media of \(kind)".utf8).write(to: URL(fileURLWithPath: path))
                let r = RoomRecordingRecord(sid: rt, accountSid: base.account.sid, roomSid: sid, participantSid: alice.sid,
                                            sourceSid: SID.make("MT"), trackName: kind == .audio ? "mic" : "camera", kind: kind,
                                            codec: kind == .audio ? "OPUS" : "VP8", container: kind == .audio ? "mka" : "mkv",
                                            status: .completed, duration: 7, size: 14, offset: 1_700_000_020_000 + Int64(i),
                                            filePath: path, createdAt: 1_700_000_020 + Int64(i), updatedAt: 1_700_000_030)
                try base.store.insertRoomRecording(r)
                recordings.append(r)
            }
            _ = await base.request("POST", "/v1/Rooms/\(sid)", form: [("Status", "completed")])
            return (try #require(try base.store.room(sid: sid)), recordings)
        }

        func cleanup() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test func recordingsAreListedFetchedServedAndDeleted() async throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let (room, recordings) = try await f.recordedRoom()
        let (audio, video) = (recordings[0], recordings[1])
        let (status, list) = await f.json("GET", "/v1/Recordings")
        #expect(status == 200 && list["meta"]?["key"]?.string == "recordings")
        #expect(list["recordings"]?.array.map { $0["sid"]?.string } == [video.sid, audio.sid])
        let first = list["recordings"]?.array.last
        #expect(first?["container_format"]?.string == "mka" && first?["codec"]?.string == "OPUS" && first?["type"]?.string == "audio")
        #expect(first?["grouping_sids"]?["room_sid"]?.string == room.sid && first?["track_name"]?.string == "mic")
        #expect(first?["duration"]?.int == 7 && first?["size"]?.int == 14 && first?["offset"]?.int == 1_700_000_020_000)
        #expect(first?["status_callback"] == .null && first?["links"]?["media"]?.string == "https://video.example/v1/Recordings/\(audio.sid)/Media")
        #expect(await f.json("GET", "/v1/Recordings?MediaType=video").1["recordings"]?.array.count == 1)
        #expect(await f.json("GET", "/v1/Recordings?SourceSid=\(audio.sourceSid)").1["recordings"]?.array.count == 1)
        #expect(await f.json("GET", "/v1/Recordings?GroupingSid=\(room.sid)&GroupingSid=PAnone").1["recordings"]?.array.isEmpty == true)
        #expect(await f.json("GET", "/v1/Recordings?Status=processing").1["recordings"]?.array.isEmpty == true)
        #expect(await f.json("GET", "/v1/Recordings?Status=nonsense").0 == 400)
        #expect(await f.json("GET", "/v1/Recordings?PageSize=1").1["meta"]?["next_page_url"]?.string?.contains("PageToken=PA1") == true)
        let (roomStatus, roomList) = await f.json("GET", "/v1/Rooms/\(room.sid)/Recordings")
        #expect(roomStatus == 200 && roomList["recordings"]?.array.count == 2)
        let (_, underRoom) = await f.json("GET", "/v1/Rooms/\(room.sid)/Recordings/\(video.sid)")
        #expect(underRoom["room_sid"]?.string == room.sid && underRoom["url"]?.string?.hasSuffix("/Rooms/\(room.sid)/Recordings/\(video.sid)") == true)
        #expect(await f.json("GET", "/v1/Rooms/\(room.sid)/Recordings/RTnone").0 == 404)

        // Media: a redirect to a signed URL, which serves the bytes without credentials until it expires.
        let redirect = await f.request("GET", "/v1/Recordings/\(audio.sid)/Media")
        #expect(redirect.status == 302)
        let location = try #require(redirect.headers["Location"])
        #expect((try? JSONValue.parse(redirect.body))?["redirect_to"]?.string == location)
        let target = String(location.dropFirst("https://video.example".count))
        let media = await f.request("GET", target, auth: false)
        #expect(media.status == 200 && media.bodyText == "media of audio" && media.headers["Content-Type"] == "audio/x-matroska")
        #expect(await f.request("GET", target.replacingOccurrences(of: "Signature=", with: "Signature=0"), auth: false).status == 404)
        #expect(await f.request("GET", target.replacingOccurrences(of: audio.sid, with: video.sid), auth: false).status == 404)
        #expect(await f.request("GET", "/v1/Recordings/\(audio.sid)/Media", auth: false).status == 401)
        f.clock.now += 601
        #expect(await f.request("GET", target, auth: false).status == 404, "expired")

        // DELETE: the status becomes deleted, the file goes, the media is gone.
        #expect(await f.request("DELETE", "/v1/Recordings/\(audio.sid)").status == 204)
        #expect(await f.json("GET", "/v1/Recordings/\(audio.sid)").1["status"]?.string == "deleted")
        #expect(!FileManager.default.fileExists(atPath: audio.filePath))
        #expect(await f.request("GET", "/v1/Recordings/\(audio.sid)/Media").status == 404)
    }

    @Test func recordingRulesAreReadAndReplaced() async throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let (_, room) = await f.base.request("POST", "/v1/Rooms", form: [("UniqueName", "ruled")])
        let sid = try #require(room["sid"]?.string)
        let (status, rules) = await f.json("GET", "/v1/Rooms/\(sid)/RecordingRules")
        #expect(status == 200 && rules["room_sid"]?.string == sid)
        #expect(rules["rules"] == .array([.object(["type": .string("exclude"), "all": .bool(true)])]))
        let update = #"[{"type": "include", "kind": "audio"}, {"type": "exclude", "publisher": "bob"}]"#
        let (updated, body) = await f.json("POST", "/v1/Rooms/\(sid)/RecordingRules", form: [("Rules", update)])
        #expect(updated == 200 && body["rules"]?.array.count == 2 && body["rules"]?.array.first?["kind"]?.string == "audio")
        for bad in ["[]", #"[{"type":"include","all":true,"kind":"audio"}]"#, #"[{"type":"include","all":false}]"#,
                    #"[{"kind":"audio"}]"#, #"[{"type":"include","kind":"data"}]"#, #"[{"type":"include","priority":"high"}]"#,
                    "[" + Array(repeating: #"{"type":"include","all":true}"#, count: 21).joined(separator: ",") + "]", "nope"] {
            let (code, error) = await f.json("POST", "/v1/Rooms/\(sid)/RecordingRules", form: [("Rules", bad)])
            #expect(code == 400 && error["code"]?.int == 53120, "\(bad)")
        }
        // At creation, as a JSON array or wrapped in {"rules": …}.
        let (_, wrapped) = await f.base.request("POST", "/v1/Rooms", form: [("UniqueName", "w"),
                                                                               ("RecordingRules", #"{"rules":[{"type":"include","all":true}]}"#)])
        #expect(wrapped["sid"]?.string != nil)
        #expect(await f.base.request("POST", "/v1/Rooms", form: [("RecordingRules", #"{"rules":[]}"#)]).1["code"]?.int == 53120)
        #expect(await f.base.request("POST", "/v1/Rooms", form: [("Type", "go"), ("RecordParticipantsOnConnect", "true")]).1["code"]?.int == 53114)
        // A completed room's rules are read from the store; they cannot change any more.
        _ = await f.base.request("POST", "/v1/Rooms/\(sid)", form: [("Status", "completed")])
        #expect(await f.json("POST", "/v1/Rooms/\(sid)/RecordingRules", form: [("Rules", update)]).1["code"]?.int == 53118)
    }

    @Test func compositionsAreValidatedListedAndDeleted() async throws {
        let f = try Fixture()
        defer { f.cleanup() }
        let (room, _) = try await f.recordedRoom()
        let grid = #"{"grid": {"video_sources": ["*"]}}"#
        let (status, created) = await f.json("POST", "/v1/Compositions", form: [
            ("RoomSid", room.sid), ("AudioSources", "*"), ("AudioSourcesExcluded", "bob*"), ("VideoLayout", grid),
            ("Resolution", "1280x720"), ("Format", "mp4"), ("Trim", "false"), ("StatusCallback", "https://app.example.com/c"),
        ])
        #expect(status == 201, "\(created)")
        let sid = try #require(created["sid"]?.string)
        #expect(sid.hasPrefix("CJ") && created["status"]?.string == "enqueued" && created["format"]?.string == "mp4")
        #expect(created["audio_sources"] == .array([.string("*")]) && created["audio_sources_excluded"] == .array([.string("bob*")]))
        #expect(created["video_layout"]?["grid"]?["video_sources"] == .array([.string("*")]) && created["trim"] == .bool(false))
        #expect(created["resolution"]?.string == "1280x720" && created["links"]?["media"]?.string?.hasSuffix("/\(sid)/Media") == true)
        #expect(await f.json("GET", "/v1/Compositions/\(sid)").1["room_sid"]?.string == room.sid)
        #expect(await f.json("GET", "/v1/Compositions?RoomSid=\(room.sid)&Status=enqueued").1["compositions"]?.array.count == 1)
        #expect(await f.json("GET", "/v1/Compositions?Status=completed").1["compositions"]?.array.isEmpty == true)
        #expect(await f.request("GET", "/v1/Compositions/\(sid)/Media").status == 404, "not made yet")
        #expect(await f.request("DELETE", "/v1/Compositions/\(sid)").status == 400, "still enqueued")

        // Once made, its media is served and DELETE removes it.
        var made = try #require(try f.base.store.composition(sid: sid))
        made.status = .completed
        made.filePath = f.directory + "/\(sid).mp4"
        try Data("mp4 bytes".utf8).write(to: URL(fileURLWithPath: made.filePath!))
        try f.base.store.updateComposition(made)
        let redirect = await f.request("GET", "/v1/Compositions/\(sid)/Media")
        let location = try #require(redirect.headers["Location"])
        let media = await f.request("GET", String(location.dropFirst("https://video.example".count)), auth: false)
        #expect(media.status == 200 && media.bodyText == "mp4 bytes" && media.headers["Content-Type"] == "video/mp4")
        #expect(await f.request("DELETE", "/v1/Compositions/\(sid)").status == 204)
        #expect(await f.json("GET", "/v1/Compositions/\(sid)").1["status"]?.string == "deleted")
        #expect(!FileManager.default.fileExists(atPath: made.filePath!))

        for (form, code) in [([("AudioSources", "*")], 400), ([("RoomSid", room.sid)], 400),
                             ([("RoomSid", room.sid), ("VideoLayout", "{\"grid\": {\"x_pos\": -1}}")], 400),
                             ([("RoomSid", room.sid), ("VideoLayout", "[1]")], 400),
                             ([("RoomSid", room.sid), ("AudioSources", "*"), ("Resolution", "641x480")], 400),
                             ([("RoomSid", room.sid), ("AudioSources", "*"), ("Resolution", "4000x480")], 400),
                             ([("RoomSid", room.sid), ("AudioSources", "*"), ("Format", "avi")], 400),
                             ([("RoomSid", room.sid), ("AudioSources", "*"), ("Trim", "maybe")], 400),
                             ([("RoomSid", "RM" + String(repeating: "0", count: 32)), ("AudioSources", "*")], 400)] {
            #expect(await f.json("POST", "/v1/Compositions", form: form).0 == code, "\(form)")
        }
        f.composer.full = true
        #expect(await f.json("POST", "/v1/Compositions", form: [("RoomSid", room.sid), ("AudioSources", "*")]).0 == 429)
        // A room still in progress has nothing to compose yet.
        let (_, live) = await f.base.request("POST", "/v1/Rooms", form: [("UniqueName", "live")])
        f.composer.full = false
        #expect(await f.json("POST", "/v1/Compositions", form: [("RoomSid", live["sid"]?.string ?? ""), ("AudioSources", "*")]).0 == 400)
    }

    @Test func videoLayoutsParseAndSourcesMatch() {
        let layout = VideoLayout.parse(#"{"main": {"z_pos": 2, "video_sources": ["screen"]}, "pip": {"x_pos": 480, "y_pos": 360, "width": 160, "height": 120, "z_pos": 1, "max_columns": 1, "max_rows": 1, "reuse": "show_newest", "video_sources": ["alice*"], "video_sources_excluded": ["alice-screen"], "cells_excluded": [0]}}"#)
        #expect(layout?.regions.map(\.name) == ["pip", "main"])
        #expect(layout?.regions.first?.width == 160 && layout?.regions.first?.reuse == "show_newest")
        for bad in ["", "[]", #"{"a": 1}"#, #"{"a": {"width": 0}}"#, #"{"a": {"z_pos": 100}}"#, #"{"a": {"reuse": "x"}}"#,
                    #"{"a": {"video_sources": [1]}}"#, #"{"a": {"colour": "red"}}"#, #"{"": {}}"#] {
            #expect(VideoLayout.parse(bad) == nil, "\(bad)")
        }
        #expect(SourcePattern.matches("student*", "studentTeam") && SourcePattern.matches("*", "") && SourcePattern.matches("a*c*e", "abcde"))
        #expect(!SourcePattern.matches("student*", "teacher") && !SourcePattern.matches("a*c", "abcd") && !SourcePattern.matches("", "x"))
        #expect(SourcePattern.matches(String(repeating: "*a", count: 200), String(repeating: "a", count: 300)))
        #expect(!SourcePattern.matches(String(repeating: "*a", count: 200) + "b", String(repeating: "a", count: 3000)))
    }
}
