import AudioCore
import Foundation
import HTTPWire
import ParleyNet
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// The REST additions on `parley-server` as users run it (its own process, SQLite store): a
/// recording served as MP3 by the binary's LAME and deleted with its files, and a call created
/// over REST ringing a listening client.
@Suite(.serialized, .tags(.process)) struct RESTProcessTests {
    static func rest(_ server: ServerProcess, _ method: String, _ path: String,
                     _ form: [(String, String)] = []) async throws -> HTTPResponse {
        let http = try HTTPClient()
        defer { http.shutdown() }
        var headers = RESTFixture.basic(server.credentials.apiKey.sid, server.credentials.apiKey.secret)
        var body: [UInt8] = []
        if !form.isEmpty {
            headers.set("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormURLEncoding.encode(form).utf8)
        }
        let url = server.baseURL + "/2010-04-01/Accounts/\(server.credentials.account.sid)" + path
        return try await http.send(HTTPRequest(method: method, target: "/", headers: headers, body: body), to: url)
    }

    @Test func theBinaryServesMP3AndDeletesRecordings() async throws {
        var recording: RecordingRecord?
        let server = try ServerProcess { databasePath in
            let store = try SQLiteAccountStore(path: databasePath)
            let account = try store.ensureDefaultAccount().account.sid
            let dir = URL(fileURLWithPath: databasePath).deletingLastPathComponent()
            let file = dir.appendingPathComponent("tone.wav")
            let tone = (0..<8000).map { Int16(6000 * sin(2 * .pi * 440 * Double($0) / 8000)) }
            try Data(WAVFile(sampleRate: 8000, channels: 1, samples: tone).serialized).write(to: file)
            let row = RecordingRecord(sid: SID.make("RE"), accountSid: account, callSid: SID.make("CA"), duration: 1,
                                      channels: 1, sampleRate: 8000, status: "completed", filePath: file.path,
                                      source: "RecordVerb", createdAt: 1_800_000_000)
            try store.insertRecording(row)
            recording = row
        }
        defer { server.stop() }
        let row = try #require(recording)
        let mp3 = try await Self.rest(server, "GET", "/Recordings/\(row.sid).mp3")
        #expect(mp3.status == 200 && mp3.headers["Content-Type"] == "audio/mpeg" && mp3.body.prefix(2) == [0xFF, 0xE3])
        let kept = URL(fileURLWithPath: row.filePath).deletingPathExtension().appendingPathExtension("mp3").path
        #expect(FileManager.default.fileExists(atPath: kept))
        #expect(try await Self.rest(server, "DELETE", "/Recordings/\(row.sid).json").status == 204)
        #expect(!FileManager.default.fileExists(atPath: row.filePath) && !FileManager.default.fileExists(atPath: kept))
        #expect(try await Self.rest(server, "GET", "/Recordings/\(row.sid).mp3").status == 404)
    }

    @Test func aCallCreatedOverRESTRingsAListeningClient() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let bob = try await SignalingTestClient(baseURL: server.baseURL, token: server.token(identity: "bob"))
        try await bob.send(.listen, id: "l1")
        _ = try await bob.expect("listening") { if case .listening = $0 { true } else { nil } }
        let created = try await Self.rest(server, "POST", "/Calls.json", [("To", "client:bob"), ("From", "+15550001111"),
                                                                          ("Twiml", "<Response><Hangup/></Response>")])
        #expect(created.status == 201, "\(created.bodyText)")
        let sid = try #require(created.jsonObject.string("sid"))
        let incoming = try await bob.expect("incoming") { if case .incoming(let i) = $0 { i } else { nil } }
        #expect(incoming.callSid == sid && incoming.from == "+15550001111")
        #expect(try await Self.rest(server, "POST", "/Calls/\(sid).json", [("Status", "canceled")]).status == 200)
        let code = try await bob.expect("cancelled") { if case .cancelled(let c) = $0 { c.code } else { nil } }
        #expect(code == 31487)
        #expect(try await Self.rest(server, "GET", "/Calls/\(sid).json").jsonObject.string("status") == "canceled")
        await bob.close()
    }
}
