import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// The official `twilio` Python library manages Video rooms with only `video.base_url` changed:
/// it creates a group room with a status callback, fetches it by SID and by UniqueName, lists it,
/// sees the duplicate name refused (53113), lists its (empty) participants, ends it with
/// `Status=completed`; then its `RequestValidator` accepts every callback, which came in
/// SequenceNumber order. Needs the venv; without it the test fails, it does not skip.
@Suite(.tags(.interop)) struct TwilioRoomsInteropTests {
    static let script = TwilioScriptPrelude.source + """
        c = client(cfg["key"], cfg["secret"])
        c.video.base_url = cfg["base"]
        rooms = c.video.v1.rooms
        out = {}
        room = rooms.create(unique_name="interop", type="group", status_callback=cfg["callback"],
                            max_participants=8, empty_room_timeout=3)
        out["created"] = {"sid": room.sid, "unique_name": room.unique_name, "status": room.status, "type": room.type,
                          "max_participants": room.max_participants, "empty_room_timeout": room.empty_room_timeout,
                          "account_sid": room.account_sid, "status_callback": room.status_callback}
        out["by_sid"] = rooms(room.sid).fetch().unique_name
        out["by_name"] = rooms("interop").fetch().sid
        out["listed"] = [r.sid for r in rooms.list(status="in-progress", unique_name="interop")]
        out["duplicate"] = failure(lambda: rooms.create(unique_name="interop"))
        out["bad_type"] = failure(lambda: rooms.create(unique_name="other", type="huge"))
        out["participants"] = len(rooms(room.sid).participants.list())
        done = rooms(room.sid).update(status="completed")
        out["completed"] = {"status": done.status, "has_end": done.end_time is not None, "duration": done.duration}
        out["listed_completed"] = [r.sid for r in rooms.list(status="completed")]
        out["missing"] = failure(lambda: rooms("RM" + "0" * 32).fetch())
        print(json.dumps(out))
        """

    @Test func twilioLibraryCreatesListsAndEndsARoomWithSignedCallbacks() async throws {
        let platform = try InteropPlatform(name: "rooms-interop")
        let credentials = platform.server.defaultCredentials
        platform.app.serve("/rooms", contentType: "text/plain", body: [])
        let input: JSONObject = ["base": .string(platform.base), "account": .string(credentials.account.sid),
                                 "key": .string(credentials.apiKey.sid), "secret": .string(credentials.apiKey.secret),
                                 "callback": .string(platform.app.baseURL + "/rooms")]
        let out = try await PythonProcess.run(Self.script, input: .object(input), in: platform.dir).objectValue ?? [:]
        let created = try #require(out["created"]?.objectValue)
        let sid = try #require(created["sid"]?.stringValue)
        #expect(SID.isValid(sid, prefix: "RM"))
        #expect(created["unique_name"] == .string("interop") && created["status"] == .string("in-progress"))
        #expect(created["type"] == .string("group") && created["max_participants"] == .integer(8))
        #expect(created["empty_room_timeout"] == .integer(3) && created["account_sid"] == .string(credentials.account.sid))
        #expect(out["by_sid"] == .string("interop") && out["by_name"] == .string(sid))
        #expect(out["listed"] == .array([.string(sid)]))
        #expect(out["duplicate"] == .object(["status": .integer(400), "code": .integer(53113)]))
        #expect(out["bad_type"] == .object(["status": .integer(400), "code": .integer(53108)]))
        #expect(out["participants"] == .integer(0))
        let completed = try #require(out["completed"]?.objectValue)
        #expect(completed["status"] == .string("completed") && completed["has_end"] == .bool(true))
        #expect(out["listed_completed"] == .array([.string(sid)]))
        #expect(out["missing"]?.objectValue?["status"] == .integer(404))

        var requests = platform.app.requests("/rooms")
        for _ in 0..<5_000 where requests.count < 2 {
            try await Task.sleep(for: .milliseconds(1))
            requests = platform.app.requests("/rooms")
        }
        #expect(requests.map { $0.parameters["StatusCallbackEvent"] } == ["room-created", "room-ended"])
        #expect(requests.map { $0.parameters["SequenceNumber"] } == ["0", "1"])
        let verdicts = try await platform.validateSignatures(requests)
        #expect(verdicts == Array(repeating: true, count: requests.count), "RequestValidator accepts every callback")
        await platform.stop()
    }
}
