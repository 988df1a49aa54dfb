import Foundation
import ParleyStore
import Testing

/// Behaviour every `RoomRecordingStore` shares: run against SQLite and the in-memory twin.
@Suite struct RoomRecordingStoreTests {
    static func recording(_ account: String, room: String, participant: String, track: String, kind: TrackKind,
                          at time: Int64) -> RoomRecordingRecord {
        RoomRecordingRecord(sid: SID.make("RT"), accountSid: account, roomSid: room, participantSid: participant,
                            sourceSid: track, trackName: kind == .audio ? "mic" : "camera", kind: kind,
                            codec: kind == .audio ? "OPUS" : "VP8", container: kind == .audio ? "mka" : "mkv",
                            offset: time * 1000 + 250, filePath: "/recordings/\(track).live", createdAt: time, updatedAt: time)
    }

    @Test(arguments: StoreKind.allCases)
    func recordingsAreFilteredAndUpdated(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme"), globex = try store.createAccount(friendlyName: "Globex")
        let (room, alice, bob) = (SID.make("RM"), SID.make("PA"), SID.make("PA"))
        let (aliceMic, aliceCam, bobMic) = (SID.make("MT"), SID.make("MT"), SID.make("MT"))
        var first = Self.recording(acme.sid, room: room, participant: alice, track: aliceMic, kind: .audio, at: 100)
        let second = Self.recording(acme.sid, room: room, participant: alice, track: aliceCam, kind: .video, at: 101)
        let third = Self.recording(acme.sid, room: room, participant: bob, track: bobMic, kind: .audio, at: 102)
        for r in [first, second, third] { try store.insertRoomRecording(r) }
        try store.insertRoomRecording(Self.recording(globex.sid, room: SID.make("RM"), participant: SID.make("PA"),
                                                     track: SID.make("MT"), kind: .audio, at: 103))
        #expect(throws: StoreError.self) { try store.insertRoomRecording(first) }
        #expect(throws: StoreError.self) {
            try store.insertRoomRecording(Self.recording("ACnone", room: room, participant: bob, track: bobMic, kind: .audio, at: 1))
        }

        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid)).map(\.sid) == [third.sid, second.sid, first.sid])
        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid, sourceSid: aliceCam)).map(\.sid) == [second.sid])
        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid, groupingSids: [room, bob])).map(\.sid) == [third.sid])
        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid, groupingSids: [alice])).count == 2)
        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid, kind: .video)).map(\.sid) == [second.sid])
        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid, createdAfter: 101, createdBefore: 101))
            .map(\.sid) == [second.sid])
        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid, roomSid: "RMother")).isEmpty)
        #expect(try store.unfinishedRoomRecordings().count == 4)

        first.status = .completed
        first.duration = 7
        first.size = 41_000
        first.container = "mka"
        first.filePath = "/recordings/\(first.sid).mka"
        first.updatedAt = 110
        try store.updateRoomRecording(first)
        #expect(try store.roomRecording(sid: first.sid) == first)
        #expect(try store.roomRecordings(RoomRecordingQuery(accountSid: acme.sid, status: .completed)).map(\.sid) == [first.sid])
        #expect(try store.unfinishedRoomRecordings().count == 3)
        #expect(throws: StoreError.self) {
            try store.updateRoomRecording(Self.recording(acme.sid, room: room, participant: bob, track: bobMic, kind: .audio, at: 1))
        }
        #expect(try store.roomRecording(sid: "RTnone") == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func compositionsAndRulesSurvive(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme")
        let room = SID.make("RM")
        var queued = CompositionRecord(sid: SID.make("CJ"), accountSid: acme.sid, roomSid: room,
                                       audioSources: ["*"], audioSourcesExcluded: ["bob*", "screen"],
                                       videoLayout: #"{"grid":{"video_sources":["*"]}}"#, resolution: "1280x720",
                                       format: "mp4", trim: false, statusCallback: "https://app.example.com/c",
                                       statusCallbackMethod: "GET", createdAt: 200, updatedAt: 200)
        let other = CompositionRecord(sid: SID.make("CJ"), accountSid: acme.sid, roomSid: SID.make("RM"), createdAt: 201,
                                      updatedAt: 201)
        try store.insertComposition(queued)
        try store.insertComposition(other)
        #expect(throws: StoreError.self) { try store.insertComposition(other) }
        #expect(try store.composition(sid: queued.sid) == queued)
        #expect(try store.compositions(CompositionQuery(accountSid: acme.sid)).map(\.sid) == [other.sid, queued.sid])
        #expect(try store.compositions(CompositionQuery(accountSid: acme.sid, roomSid: room)).map(\.sid) == [queued.sid])
        #expect(try store.unfinishedCompositions().map(\.sid) == [queued.sid, other.sid])

        queued.status = .completed
        queued.duration = 12
        queued.size = 250_000
        queued.bitrate = 166_666
        queued.filePath = "/recordings/\(queued.sid).mp4"
        queued.completedAt = 230
        queued.updatedAt = 230
        try store.updateComposition(queued)
        #expect(try store.composition(sid: queued.sid) == queued)
        #expect(try store.compositions(CompositionQuery(accountSid: acme.sid, status: .completed)).map(\.sid) == [queued.sid])
        #expect(try store.unfinishedCompositions().map(\.sid) == [other.sid])

        #expect(try store.recordingRules(roomSid: room) == nil)
        try store.setRecordingRules(StoredRecordingRules(roomSid: room, rules: #"[{"type":"include","all":true}]"#,
                                                         createdAt: 300, updatedAt: 300))
        try store.setRecordingRules(StoredRecordingRules(roomSid: room, rules: #"[{"type":"exclude","all":true}]"#,
                                                         createdAt: 310, updatedAt: 310))
        #expect(try store.recordingRules(roomSid: room) == StoredRecordingRules(
            roomSid: room, rules: #"[{"type":"exclude","all":true}]"#, createdAt: 300, updatedAt: 310))
    }

    /// The SQLite store keeps recordings, compositions and rules across a reopen (a restart).
    @Test func sqliteKeepsThemAcrossARestart() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let account: String, recording: RoomRecordingRecord, composition: CompositionRecord
        do {
            let store = try SQLiteAccountStore(path: path)
            account = try store.createAccount(friendlyName: "Acme").sid
            recording = Self.recording(account, room: SID.make("RM"), participant: SID.make("PA"), track: SID.make("MT"),
                                       kind: .video, at: 100)
            composition = CompositionRecord(sid: SID.make("CJ"), accountSid: account, roomSid: recording.roomSid,
                                            createdAt: 100, updatedAt: 100)
            try store.insertRoomRecording(recording)
            try store.insertComposition(composition)
            try store.setRecordingRules(StoredRecordingRules(roomSid: recording.roomSid, rules: "[]", createdAt: 1, updatedAt: 1))
        }
        let reopened = try SQLiteAccountStore(path: path)
        #expect(try reopened.roomRecording(sid: recording.sid) == recording)
        #expect(try reopened.composition(sid: composition.sid) == composition)
        #expect(try reopened.recordingRules(roomSid: recording.roomSid)?.rules == "[]")
        #expect(try filePermissions(path) & 0o077 == 0)
    }
}
