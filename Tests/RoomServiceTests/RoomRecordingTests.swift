import Foundation
import ParleyCore
import ParleyNet
import ParleyStore
import ParleyTestClock
import ParleyTestSupport
import PlatformCore
import RoomService
import SFU
import ServerMedia
import Signaling
import Testing
import VideoREST

/// Track recordings over a media-plane twin: `RecordParticipantsOnConnect` and recording rules
/// decide which published tracks are tapped; packets go through a `TrackRecorder` into files;
/// a stopped track's recording is remuxed (a copy here: ffmpeg is the interop test's) and
/// completed in the store; `recording-*` callbacks come in the room's SequenceNumber order, after
/// `room-ended` when the room ends first; participants hear `room.recording` and `isRecording`.
@Suite struct RoomRecordingTests {
    struct Fixture: Sendable {
        let store = InMemoryAccountStore()
        let media = RoomMediaTwin()
        let clock = VirtualClock()
        let http: HTTPClient
        let app: TwiMLTestApp
        let service: RoomService
        let accountSid: String
        let directory: String

        init() throws {
            let credentials = try store.ensureDefaultAccount()
            accountSid = credentials.account.sid
            app = try TwiMLTestApp(authToken: credentials.account.authToken)
            app.serve("/rooms", contentType: "text/plain", body: [])
            http = try HTTPClient()
            directory = NSTemporaryDirectory() + "parley-room-rec-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var configuration = RoomService.Configuration()
            configuration.clock = clock
            configuration.recordingsDirectory = directory
            configuration.remux = { input, output throws(MediaError) in
                do { try FileManager.default.copyItem(atPath: input, toPath: output) } catch {
                    throw MediaError(.internalFailure, "\(error)")
                }
                return Int64((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0)
            }
            service = RoomService(store: store, webhooks: WebhookClient(http: http), media: media, configuration: configuration)
        }

        func room(record: Bool = false, rules: RecordingRules? = nil) async throws -> RoomRecord {
            var request = RoomCreateRequest(accountSid: accountSid, uniqueName: "standup", statusCallback: app.baseURL + "/rooms",
                                            recordParticipantsOnConnect: record)
            request.recordingRules = rules
            return try await service.createRoom(request)
        }

        func connect(_ identity: String, _ link: RecordingLink, offer: String, tracks: [RoomTrackInfo]) async throws -> RoomJoined {
            let joined = try await service.connect(accountSid: accountSid, identity: identity, room: "standup", offer: offer,
                                                   tracks: tracks, link: link)
            await service.settle()
            return joined
        }

        /// Sends `count` Opus packets (20 ms) and, for a camera, a key frame and deltas into the tap.
        func play(_ section: RoomTrackAddress, video: Bool, count: Int = 25) {
            for i in 0..<count {
                let arrival = 100 + Double(i) * 0.02
                let payload: [UInt8] = video ? (i == 0 ? [0x10, 0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00]
                                                 : [0x10, 0x51, 0x01, 0x00, 0xAA]) : [0xF8, 0x55, 0x55]
                media.deliver(TappedRTPPacket(payload: payload, ssrc: 5, sequenceNumber: UInt16(i),
                                              timestamp: UInt32(i) * (video ? 1_800 : 960), marker: true, arrival: arrival),
                              to: section)
            }
        }

        /// The callbacks, once `count` have come.
        func callbacks(_ count: Int) async throws -> [TwiMLTestApp.Request] {
            for _ in 0..<5_000 where app.requests("/rooms").count < count { try await Task.sleep(for: .milliseconds(1)) }
            return app.requests("/rooms")
        }

        /// Waits until the store shows no recording processing.
        func recordingsDone() async throws {
            for _ in 0..<5_000 where !((try? store.unfinishedRoomRecordings()) ?? []).isEmpty {
                try await Task.sleep(for: .milliseconds(1))
            }
        }

        func close() async {
            http.shutdown()
            await app.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static let micAndCamera = [RoomTrackInfo(mid: "0", name: "mic", kind: .audio), RoomTrackInfo(mid: "1", name: "camera", kind: .video)]

    static func events(_ requests: [TwiMLTestApp.Request]) -> [String] {
        requests.map { r in [r.parameters["StatusCallbackEvent"], r.parameters["TrackName"]].compactMap { $0 }.joined(separator: " ") }
    }

    @Test func aRejoinedParticipantsTracksAreTappedInTheirNewSections() async throws {
        let f = try Fixture()
        _ = try await f.room(record: true)
        let a = try await f.connect("alice", RecordingLink(), offer: RoomMediaTwin.offer("send audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        #expect(f.media.tapped == [RoomTrackAddress(session: "S1", mid: "0")])
        await f.service.participant(a.participant.sid, path: .signaling, reachable: false)
        let again = try await f.service.connect(accountSid: f.accountSid, identity: "alice", room: "standup",
                                                offer: RoomMediaTwin.offer("send audio 3"),
                                                tracks: [RoomTrackInfo(mid: "3", name: "mic", kind: .audio)],
                                                reconnect: a.participant.sid, link: RecordingLink())
        await f.service.settle()
        #expect(again.participant.sid == a.participant.sid && again.published.map(\.trackSid) == a.published.map(\.trackSid))
        #expect(f.media.tapped == [RoomTrackAddress(session: "S2", mid: "3")])
        await f.close()
    }

    @Test func recordParticipantsOnConnectRecordsEveryTrackUntilItGoes() async throws {
        let f = try Fixture()
        let room = try await f.room(record: true)
        let (alice, bob) = (RecordingLink(), RecordingLink())
        f.media.setCodec("VP8", mid: "1")
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0", "send video 1"), tracks: Self.micAndCamera)
        #expect(a.room.isRecording, "room.joined says the room records")
        let (mic, camera) = (RoomTrackAddress(session: "S1", mid: "0"), RoomTrackAddress(session: "S1", mid: "1"))
        #expect(Set(f.media.tapped) == [mic, camera])
        f.play(mic, video: false)
        f.play(camera, video: true, count: 30)
        let b = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 0", "recv video 1"), tracks: [])
        #expect(b.room.isRecording)
        #expect(try f.store.roomRecordings(RoomRecordingQuery(accountSid: f.accountSid)).allSatisfy { $0.status == .processing })

        await f.service.leave(participantSid: a.participant.sid)
        await f.service.settle()
        try await f.recordingsDone()
        #expect(f.media.tapped.isEmpty)
        #expect(bob.take().contains(.roomRecording(RoomRecording(isRecording: false))))
        let recordings = try f.store.roomRecordings(RoomRecordingQuery(accountSid: f.accountSid, roomSid: room.sid))
            .sorted { $0.kind.rawValue < $1.kind.rawValue }
        #expect(recordings.map(\.status) == [.completed, .completed])
        #expect(recordings.map(\.codec) == ["OPUS", "VP8"] && recordings.map(\.container) == ["mka", "mkv"])
        #expect(recordings.map(\.trackName) == ["mic", "camera"] && recordings.allSatisfy { $0.participantSid == a.participant.sid })
        #expect(recordings.allSatisfy { $0.duration == 1 && ($0.size ?? 0) > 0 && $0.offset > 1_000_000_000_000 })
        #expect(recordings.allSatisfy { FileManager.default.fileExists(atPath: $0.filePath) })
        #expect(recordings.map { ($0.filePath as NSString).pathExtension } == ["mka", "mkv"])
        #expect(!FileManager.default.fileExists(atPath: f.directory + "/\(recordings[0].sid).ogg"), "the live file is removed")

        _ = await f.service.completeRoom(sid: room.sid)
        let callbacks = try await f.callbacks(14)
        #expect(callbacks.map { $0.parameters["SequenceNumber"] } == (0..<callbacks.count).map { String($0) })
        let events = Self.events(callbacks)
        #expect(events.filter { $0.hasPrefix("recording-started") }.sorted() == ["recording-started camera", "recording-started mic"])
        #expect(events.filter { $0.hasPrefix("recording-completed") }.sorted() == ["recording-completed camera", "recording-completed mic"])
        #expect(events.firstIndex(of: "recording-started mic")! > events.firstIndex(of: "track-added mic")!)
        #expect(events.last == "room-ended")
        let completed = try #require(callbacks.first { $0.parameters["StatusCallbackEvent"] == "recording-completed" })
        for name in ["RecordingSid", "RecordingUri", "SourceSid", "Container", "Codec", "Duration", "Size", "MediaUri",
                     "ParticipantSid", "ParticipantIdentity", "TrackSid", "RoomSid", "RoomName", "Timestamp"] {
            #expect(completed.parameters[name] != nil, "\(name) missing")
        }
        #expect(completed.parameters["MediaUri"] == "/v1/Recordings/\(completed.parameters["RecordingSid"] ?? "")/Media")
        await f.close()
    }

    @Test func recordingRulesStartAndStopRecordingsWhileTheRoomGoesOn() async throws {
        let f = try Fixture()
        let room = try await f.room(rules: RecordingRules(rules: [.init(action: .include, kind: "audio")]))
        #expect(await f.service.recordingRules(roomSid: room.sid) == RecordingRules(rules: [.init(action: .include, kind: "audio")]))
        let alice = RecordingLink()
        f.media.setCodec("H264", mid: "1")
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0", "send video 1"), tracks: Self.micAndCamera)
        #expect(a.room.isRecording && f.media.tapped == [RoomTrackAddress(session: "S1", mid: "0")])
        f.play(RoomTrackAddress(session: "S1", mid: "0"), video: false)

        // Everything: the H.264 camera cannot be recorded and fails at once.
        _ = await f.service.updateRecordingRules(roomSid: room.sid, .recordAll)
        await f.service.settle()
        // Nothing: the mic's recording completes; alice hears the room stopped recording.
        _ = await f.service.updateRecordingRules(roomSid: room.sid, .recordNone)
        await f.service.settle()
        try await f.recordingsDone()
        #expect(f.media.tapped.isEmpty)
        #expect(alice.take().filter { if case .roomRecording = $0 { true } else { false } }
                    == [.roomRecording(RoomRecording(isRecording: false))])
        let recordings = try f.store.roomRecordings(RoomRecordingQuery(accountSid: f.accountSid, roomSid: room.sid))
        #expect(recordings.map(\.status).sorted { $0.rawValue < $1.rawValue } == [.completed, .failed])
        #expect(try f.store.recordingRules(roomSid: room.sid)?.rules == #"[{"type":"exclude","all":true}]"#)
        // Recording again is a new recording.
        _ = await f.service.updateRecordingRules(roomSid: room.sid, RecordingRules(rules: [.init(action: .include, publisher: "alice")]))
        await f.service.settle()
        await f.service.settle()  // the failed camera's tap is removed by work the first settle ran
        #expect(f.media.tapped == [RoomTrackAddress(session: "S1", mid: "0")], "the camera failed at once again")
        _ = await f.service.completeRoom(sid: room.sid)
        await f.service.settle()
        try await f.recordingsDone()
        let callbacks = try await f.callbacks(16)
        let events = Self.events(callbacks)
        #expect(callbacks.map { $0.parameters["SequenceNumber"] } == (0..<callbacks.count).map { String($0) })
        #expect(events.contains("recording-failed camera") && events.contains("recording-completed mic"), "\(events)")
        // The last recordings finish after the room ended: numbered on after room-ended.
        let ended = try #require(events.firstIndex(of: "room-ended"), "\(events)")
        #expect(events[(ended + 1)...].allSatisfy { $0.hasPrefix("recording-") }, "\(events)")
        #expect(await f.service.recordingRules(roomSid: room.sid) == nil, "no live rules once ended")
        await f.close()
    }
}
