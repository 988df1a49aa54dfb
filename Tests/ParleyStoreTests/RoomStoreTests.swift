import Foundation
import ParleyStore
import Testing

/// Behaviour every `RoomStore` shares: run against SQLite and the in-memory twin.
@Suite struct RoomStoreTests {
    static func room(_ account: String, _ name: String, at time: Int64, status: RoomStatus = .inProgress) -> RoomRecord {
        RoomRecord(sid: SID.make("RM"), accountSid: account, uniqueName: name, type: .group, status: status,
                   statusCallback: "https://app.example.com/rooms", maxParticipants: 10, createdAt: time, updatedAt: time)
    }

    @Test(arguments: StoreKind.allCases)
    func roomsAreUniqueByNameWhileInProgress(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme"), globex = try store.createAccount(friendlyName: "Globex")
        var standup = Self.room(acme.sid, "standup", at: 100)
        try store.insertRoom(standup)
        #expect(throws: StoreError.self) { try store.insertRoom(Self.room(acme.sid, "standup", at: 101)) }
        try store.insertRoom(Self.room(globex.sid, "standup", at: 101))  // another account may
        #expect(try store.inProgressRoom(accountSid: acme.sid, uniqueName: "standup") == standup)

        standup.status = .completed
        standup.endTime = 160
        standup.duration = 60
        standup.updatedAt = 160
        try store.updateRoom(standup)
        #expect(try store.room(sid: standup.sid) == standup)
        #expect(try store.inProgressRoom(accountSid: acme.sid, uniqueName: "standup") == nil)
        let again = Self.room(acme.sid, "standup", at: 200)
        try store.insertRoom(again)  // the name is free once the first ended

        #expect(try store.rooms(RoomQuery(accountSid: acme.sid)).map(\.sid) == [again.sid, standup.sid])
        #expect(try store.rooms(RoomQuery(accountSid: acme.sid, status: .completed)).map(\.sid) == [standup.sid])
        #expect(try store.rooms(RoomQuery(accountSid: acme.sid, createdAfter: 150)).map(\.sid) == [again.sid])
        #expect(try store.rooms(RoomQuery(accountSid: acme.sid, offset: 1, limit: 1)).map(\.sid) == [standup.sid])
        #expect(try store.rooms(RoomQuery(accountSid: acme.sid, uniqueName: "none")).isEmpty)
        #expect(throws: StoreError.self) { try store.updateRoom(Self.room(acme.sid, "ghost", at: 1)) }
        // Every account's in-progress rooms, oldest first (what a restart settles).
        #expect(try store.unfinishedRooms().map(\.uniqueName) == ["standup", "standup"])
        #expect(try store.unfinishedRooms().map(\.accountSid) == [globex.sid, acme.sid])
    }

    @Test(arguments: StoreKind.allCases)
    func participantsAndTheirTracks(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme")
        let room = Self.room(acme.sid, "demo", at: 100)
        try store.insertRoom(room)
        var alice = ParticipantRecord(sid: SID.make("PA"), roomSid: room.sid, accountSid: acme.sid, identity: "alice",
                                      startTime: 110, updatedAt: 110)
        let bob = ParticipantRecord(sid: SID.make("PA"), roomSid: room.sid, accountSid: acme.sid, identity: "bob",
                                    startTime: 120, updatedAt: 120)
        try store.insertParticipant(alice)
        try store.insertParticipant(bob)
        #expect(try store.participants(roomSid: room.sid, status: nil).map(\.identity) == ["alice", "bob"])
        alice.status = .disconnected
        alice.endTime = 170
        alice.duration = 60
        alice.updatedAt = 170
        try store.updateParticipant(alice)
        #expect(try store.participant(sid: alice.sid) == alice)
        #expect(try store.participants(roomSid: room.sid, status: .connected).map(\.identity) == ["bob"])

        let mic = PublishedTrackRecord(sid: SID.make("MT"), participantSid: bob.sid, roomSid: room.sid, name: "mic", kind: .audio,
                                       createdAt: 121, updatedAt: 121)
        var camera = PublishedTrackRecord(sid: SID.make("MT"), participantSid: bob.sid, roomSid: room.sid, name: "camera",
                                          kind: .video, createdAt: 122, updatedAt: 122)
        try store.upsertPublishedTrack(mic)
        try store.upsertPublishedTrack(camera)
        camera.enabled = false
        camera.updatedAt = 130
        try store.upsertPublishedTrack(camera)
        #expect(try store.publishedTracks(participantSid: bob.sid) == [mic, camera])
        #expect(try store.deletePublishedTrack(sid: mic.sid))
        #expect(try !store.deletePublishedTrack(sid: mic.sid))
        #expect(try store.publishedTracks(participantSid: bob.sid) == [camera])
        #expect(throws: StoreError.self) {
            try store.insertParticipant(ParticipantRecord(sid: SID.make("PA"), roomSid: "RMnone", accountSid: acme.sid,
                                                          identity: "eve", startTime: 1, updatedAt: 1))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func subscribeRulesAreStoredPerParticipantAndReplaced(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        #expect(try store.subscribeRules(participantSid: "PA1") == nil, "none set: everything")
        let noVideo = StoredSubscribeRules(participantSid: "PA1", roomSid: "RM1",
                                           rules: #"[{"type":"include","all":true},{"type":"exclude","kind":"video"}]"#, updatedAt: 10)
        try store.setSubscribeRules(noVideo)
        try store.setSubscribeRules(StoredSubscribeRules(participantSid: "PA2", roomSid: "RM1", rules: "[]", updatedAt: 11))
        #expect(try store.subscribeRules(participantSid: "PA1") == noVideo)
        var everything = noVideo
        everything.rules = #"[{"type":"include","all":true}]"#
        everything.updatedAt = 20
        try store.setSubscribeRules(everything)
        #expect(try store.subscribeRules(participantSid: "PA1") == everything)
        #expect(try store.subscribeRules(participantSid: "PA2")?.rules == "[]")
    }

    @Test func roomsSurviveReopening() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let room: RoomRecord
        do {
            let store = try SQLiteAccountStore(path: path)
            let account = try store.createAccount(friendlyName: "Acme")
            room = Self.room(account.sid, "persist", at: 5)
            try store.insertRoom(room)
        }
        #expect(try SQLiteAccountStore(path: path).room(sid: room.sid) == room)
    }
}
