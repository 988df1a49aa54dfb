import ParleyCore
import ParleyStore
import SFU
import Signaling
import ParleyTestClock
import ParleyTestSupport
import RoomService
import Synchronization
import Testing
import VideoREST

/// Participants joining and leaving rooms: ad hoc rooms, duplicate identities, MaxParticipants,
/// the empty-room timeout, removal by REST and by MaxParticipantDuration, in virtual time.
@Suite struct RoomParticipantTests {
    final class Link: RoomParticipantLink {
        let reasons = Mutex<[ParleyError.Code]>([])
        func send(_ message: SignalingMessage, ref: String?) async {}
        func removed(_ reason: ParleyError) async { reasons.withLock { $0.append(reason.code) } }
        func waitForRemoval() async throws -> [ParleyError.Code] {
            for _ in 0..<5_000 where reasons.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
            return reasons.withLock { $0 }
        }
    }

    @Test func aJoinMakesAnAdHocGroupRoomAndTheLastToLeaveStartsItsEmptyTimeout() async throws {
        let f = try RoomLifecycleTests.Fixture()
        let (room, alice) = try await f.service.join(accountSid: f.accountSid, identity: "alice", room: "adhoc", link: Link())
        #expect(room.type == .group && room.uniqueName == "adhoc" && SID.isValid(alice.sid, prefix: "PA"))
        let (same, bob) = try await f.service.join(accountSid: f.accountSid, identity: "bob", room: room.sid, link: Link())
        #expect(same.sid == room.sid)
        #expect(await f.service.connectedParticipants(roomSid: room.sid).map(\.identity) == ["alice", "bob"])
        #expect(try f.store.participants(roomSid: room.sid, status: .connected).count == 2)

        await f.service.leave(participantSid: alice.sid)
        await f.service.leave(participantSid: bob.sid)
        #expect(try f.store.participant(sid: bob.sid)?.status == .disconnected)
        // The 4-hour participant limits sleep too; the empty-room timer (5 minutes) is the third sleeper.
        #expect(await f.clock.waitForSleepers(3))
        f.clock.advance(by: .seconds(299))
        #expect(try f.store.room(sid: room.sid)?.status == .inProgress)
        f.clock.advance(by: .seconds(1))
        for _ in 0..<5_000 where try f.store.room(sid: room.sid)?.status != .completed { try await Task.sleep(for: .milliseconds(1)) }
        #expect(try f.store.room(sid: room.sid)?.status == .completed)
        await f.close()
    }

    @Test func aDuplicateIdentityReplacesTheFirstAndAFullRoomRefuses() async throws {
        let f = try RoomLifecycleTests.Fixture()
        var request = f.request("small")
        request.maxParticipants = 2
        let room = try await f.service.createRoom(request)
        let first = Link()
        let (_, alice1) = try await f.service.join(accountSid: f.accountSid, identity: "alice", room: "small", link: first)
        let (_, alice2) = try await f.service.join(accountSid: f.accountSid, identity: "alice", room: "small", link: Link())
        #expect(try await first.waitForRemoval() == [.participantDuplicateIdentity])
        #expect(await f.service.connectedParticipants(roomSid: room.sid).map(\.sid) == [alice2.sid])
        #expect(alice1.sid != alice2.sid)
        _ = try await f.service.join(accountSid: f.accountSid, identity: "bob", room: "small", link: Link())
        do {
            _ = try await f.service.join(accountSid: f.accountSid, identity: "carol", room: "small", link: Link())
            Issue.record("a third participant joined a room of two")
        } catch {
            #expect(error.code == .roomMaxParticipantsExceeded)
        }
        do {
            _ = try await f.service.join(accountSid: f.accountSid, identity: "dave", room: "RM" + String(repeating: "0", count: 32),
                                         link: Link())
            Issue.record("joined a room that does not exist")
        } catch {
            #expect(error.code == .roomNotFound)
        }
        let calls = try await f.callbacks(5)
        #expect(calls.map { $0.parameters["StatusCallbackEvent"] ?? "" } == [
            "room-created", "participant-connected", "participant-disconnected", "participant-connected",
            "participant-connected",
        ])
        #expect(calls.map { $0.parameters["SequenceNumber"] ?? "" } == ["0", "1", "2", "3", "4"])
        #expect(calls[2].parameters["ParticipantSid"] == alice1.sid && calls[2].parameters["ParticipantStatus"] == "disconnected")
        await f.close()
    }

    @Test func aGroupSmallRoomRefusesItsFifthParticipantWith53105() async throws {
        let f = try RoomLifecycleTests.Fixture()
        var request = f.request("huddle")
        request.type = .groupSmall
        let room = try await f.service.createRoom(request)
        #expect(room.maxParticipants == 4)
        for identity in ["alice", "bob", "carol", "dave"] {
            _ = try await f.service.join(accountSid: f.accountSid, identity: identity, room: "huddle", link: Link())
        }
        do {
            _ = try await f.service.join(accountSid: f.accountSid, identity: "erin", room: "huddle", link: Link())
            Issue.record("a fifth participant joined a group-small room")
        } catch {
            #expect(error.code == .roomMaxParticipantsExceeded)
        }
        #expect(await f.service.connectedParticipants(roomSid: room.sid).count == 4)
        await f.close()
    }

    @Test func completingARoomDisconnectsEveryoneFirstAndRESTCanRemoveOne() async throws {
        let f = try RoomLifecycleTests.Fixture()
        let room = try await f.service.createRoom(f.request("meeting"))
        let (alice, bob) = (Link(), Link())
        let (_, a) = try await f.service.join(accountSid: f.accountSid, identity: "alice", room: "meeting", link: alice)
        let (_, b) = try await f.service.join(accountSid: f.accountSid, identity: "bob", room: "meeting", link: bob)
        #expect(await f.service.disconnectParticipant(roomSid: room.sid, participantSid: a.sid)?.status == .disconnected)
        #expect(await f.service.disconnectParticipant(roomSid: room.sid, participantSid: a.sid) == nil)
        #expect(await f.service.subscribeRules(roomSid: room.sid, participantSid: b.sid) == .subscribeAll)
        #expect(await f.service.updateSubscribeRules(roomSid: room.sid, participantSid: b.sid, .subscribeNone) == .subscribeNone)
        _ = await f.service.completeRoom(sid: room.sid)
        #expect(try await bob.waitForRemoval() == [.roomCompleted])
        let calls = try await f.callbacks(6)
        #expect(calls.map { $0.parameters["StatusCallbackEvent"] ?? "" } == [
            "room-created", "participant-connected", "participant-connected", "participant-disconnected",
            "participant-disconnected", "room-ended",
        ])
        #expect(calls[4].parameters["ParticipantIdentity"] == "bob" && calls[4].parameters["ParticipantDuration"] != nil)
        await f.close()
    }

    @Test func maxParticipantDurationRemovesAParticipant() async throws {
        let f = try RoomLifecycleTests.Fixture()
        var request = f.request("short")
        request.maxParticipantDuration = 600
        let room = try await f.service.createRoom(request)
        let link = Link()
        _ = try await f.service.join(accountSid: f.accountSid, identity: "alice", room: "short", link: link)
        #expect(await f.clock.waitForSleepers(2))  // the unused-room timer (disarmed) and the duration limit
        f.clock.advance(by: .seconds(600))
        #expect(try await link.waitForRemoval() == [.participantSessionLengthExceeded])
        #expect(await f.service.connectedParticipants(roomSid: room.sid).isEmpty)
        await f.close()
    }
}
