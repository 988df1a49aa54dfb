import ParleyCore
import ParleyStore
import ParleyTestSupport
import RoomService
import Testing
import VideoREST

/// Rooms a crashed process left in progress are settled at start (`settleUnfinishedRooms`).
@Suite struct RoomRecoveryTests {
    @Test func aRoomLeftInProgressIsCompletedItsParticipantsDisconnectedAndItsNameFreed() async throws {
        let f = try RoomLifecycleTests.Fixture()
        // What a previous process left: an in-progress room with a connected participant.
        let room = RoomRecord(sid: SID.make("RM"), accountSid: f.accountSid, uniqueName: "standup", type: .group,
                              statusCallback: f.app.baseURL + "/rooms", createdAt: 1_000, updatedAt: 1_010)
        try f.store.insertRoom(room)
        let participant = ParticipantRecord(sid: SID.make("PA"), roomSid: room.sid, accountSid: f.accountSid, identity: "alice",
                                            startTime: 1_005, updatedAt: 1_005)
        try f.store.insertParticipant(participant)

        #expect(f.service.settleUnfinishedRooms(lastAlive: 1_060) == 1)
        let settled = try #require(try f.store.room(sid: room.sid))
        #expect(settled.status == .completed && settled.endTime == 1_060 && settled.duration == 60)
        let gone = try #require(try f.store.participant(sid: participant.sid))
        #expect(gone.status == .disconnected && gone.endTime == 1_060 && gone.duration == 55)
        let callbacks = try await f.callbacks(1)
        #expect(callbacks.map { $0.parameters["StatusCallbackEvent"] } == ["room-ended"])
        #expect(callbacks.first?.parameters["RoomSid"] == room.sid && callbacks.first?.parameters["SequenceNumber"] == "3")
        #expect(f.service.settleUnfinishedRooms(lastAlive: 1_060) == 0, "settled once")
        // The name is free again: a new room takes it.
        let next = try await f.service.createRoom(f.request("standup"))
        #expect(next.sid != room.sid && next.status == .inProgress)
        await f.close()
    }
}
