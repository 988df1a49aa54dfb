import Foundation
import ParleyNet
import ParleyStore
import Testing
import VideoREST

/// The official `twilio` Python library (the venv's) against the router on a loopback HTTP server.
@Suite("VideoTwilioLibrary")
struct VideoTwilioLibraryTests {
    static let script = """
        import json, sys
        from twilio.rest import Client
        from twilio.base.exceptions import TwilioRestException
        cfg = json.load(sys.stdin)
        c = Client(cfg["user"], cfg["password"])
        c.video.base_url = cfg["base"]
        room = c.video.v1.rooms.create(unique_name="lib", type="group", max_participants=5)
        out = {"sid": room.sid, "status": room.status, "max": room.max_participants, "created": str(room.date_created)}
        out["listed"] = [r.sid for r in c.video.v1.rooms.list(page_size=1, limit=3)]
        try:
            c.video.v1.rooms.create(type="nope")
        except TwilioRestException as e:
            out["code"] = e.code
        out["done"] = c.video.v1.rooms(room.sid).update(status="completed").status
        print(json.dumps(out))
        """

    @Test func libraryCreatesListsAndCompletesRooms() async throws {
        let python = FileManager.default.currentDirectoryPath + "/.venv/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { return }
        let port = PortBox()
        let f = try VideoFixture(base: { "http://127.0.0.1:\(port.value)" })
        let router = f.router
        let server = HTTPServer(configuration: HTTPServer.Configuration(port: 0)) { await router.handle($0) }
        try server.start()
        port.value = server.localPort
        defer { Task { await server.shutdown() } }
        for i in 0..<2 { _ = await f.request("POST", "/v1/Rooms", form: [("UniqueName", "pre\(i)")]) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let cfg = #"{"user":"\#(f.account.sid)","password":"\#(f.account.authToken)","base":"http://127.0.0.1:\#(server.localPort)"}"#
        input.fileHandleForWriting.write(Data(cfg.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        await server.shutdown()
        let result = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        #expect((result["sid"] as? String)?.hasPrefix("RM") == true)
        #expect(result["status"] as? String == "in-progress")
        #expect(result["max"] as? Int == 5)
        #expect(result["created"] as? String == "2023-11-14 22:13:20+00:00")
        #expect((result["listed"] as? [String])?.count == 3)
        #expect(result["code"] as? Int == 53108)
        #expect(result["done"] as? String == "completed")
    }
}

/// The server's port, known once it listens (the router's base URL reads it per request).
final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var port = 0
    var value: Int {
        get { lock.withLock { port } }
        set { lock.withLock { port = newValue } }
    }
}
