import ParleyCore
import ParleyNet
import ParleyStore
import ParleyTestClock
import ParleyTestSupport
import PlatformCore
import RoomService
import Testing
import VideoREST

/// Rooms created by REST: stored, called back (signed, in SequenceNumber order), ended by
/// `Status=completed` or by the unused-room timeout, in virtual time.
@Suite struct RoomLifecycleTests {
    struct Fixture: Sendable {
        let store = InMemoryAccountStore()
        let clock = VirtualClock()
        let http: HTTPClient
        let app: TwiMLTestApp
        let service: RoomService
        let accountSid: String

        init() throws {
            let credentials = try store.ensureDefaultAccount()
            accountSid = credentials.account.sid
            app = try TwiMLTestApp(authToken: credentials.account.authToken)
            app.serve("/rooms", contentType: "text/plain", body: [])
            http = try HTTPClient()
            var configuration = RoomService.Configuration()
            configuration.clock = clock
            service = RoomService(store: store, webhooks: WebhookClient(http: http), configuration: configuration)
        }

        func request(_ name: String?, unused: Int = 5) -> RoomCreateRequest {
            RoomCreateRequest(accountSid: accountSid, uniqueName: name, statusCallback: app.baseURL + "/rooms",
                              unusedRoomTimeout: unused)
        }

        /// The callbacks received so far, once `count` have arrived.
        func callbacks(_ count: Int) async throws -> [TwiMLTestApp.Request] {
            for _ in 0..<5_000 where app.requests("/rooms").count < count { try await Task.sleep(for: .milliseconds(1)) }
            return app.requests("/rooms")
        }

        func close() async {
            http.shutdown()
            await app.shutdown()
        }
    }

    @Test func aRoomIsCreatedCalledBackAndCompletedByREST() async throws {
        let f = try Fixture()
        let room = try await f.service.createRoom(f.request("standup"))
        #expect(room.status == .inProgress && room.uniqueName == "standup" && SID.isValid(room.sid, prefix: "RM"))
        #expect(try f.store.inProgressRoom(accountSid: f.accountSid, uniqueName: "standup")?.sid == room.sid)
        await #expect(throws: ParleyError.self) { try await f.service.createRoom(f.request("standup")) }
        do {
            _ = try await f.service.createRoom(f.request("standup"))
        } catch {
            #expect(error.code == .roomExists)
        }

        let ended = try #require(await f.service.completeRoom(sid: room.sid))
        #expect(ended.status == .completed && ended.endTime != nil && ended.duration != nil)
        #expect(try f.store.room(sid: room.sid)?.status == .completed)
        #expect(await f.service.completeRoom(sid: room.sid) == nil, "a completed room cannot be completed again")

        let calls = try await f.callbacks(2)
        #expect(calls.map { $0.parameters["StatusCallbackEvent"] } == ["room-created", "room-ended"])
        #expect(calls.map { $0.parameters["SequenceNumber"] } == ["0", "1"])
        #expect(calls.allSatisfy { $0.signatureValid })
        #expect(calls.allSatisfy { $0.parameters["RoomSid"] == room.sid && $0.parameters["RoomName"] == "standup" })
        #expect(calls.allSatisfy { $0.parameters["AccountSid"] == f.accountSid && $0.parameters["RoomType"] == "group" })
        #expect(calls[1].parameters["RoomStatus"] == "completed" && calls[1].parameters["RoomDuration"] != nil)
        #expect(calls[0].parameters["Timestamp"]?.hasSuffix("Z") == true)
        await f.close()
    }

    @Test func aRoomNobodyJoinsEndsAfterItsUnusedRoomTimeout() async throws {
        let f = try Fixture()
        let room = try await f.service.createRoom(f.request(nil, unused: 2))
        #expect(room.uniqueName == room.sid, "without UniqueName the SID is the name")
        #expect(await f.clock.waitForSleepers(1))
        f.clock.advance(by: .seconds(119))
        #expect(try f.store.room(sid: room.sid)?.status == .inProgress)
        f.clock.advance(by: .seconds(1))
        let calls = try await f.callbacks(2)
        #expect(calls.last?.parameters["StatusCallbackEvent"] == "room-ended")
        #expect(try f.store.room(sid: room.sid)?.status == .completed)
        await f.close()
    }
}
