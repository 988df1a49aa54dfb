import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing
import VoiceREST

/// The official `twilio` Python library (9.13.0 in the project venv), with only its base URL
/// pointed at an in-process server running `TwilioRESTRouter`, manages applications, lists and
/// fetches calls over several pages with filters, updates a live call, and lists recordings.
/// Needs the venv; without it the test fails, it does not skip.
@Suite(.tags(.interop)) struct TwilioRESTInteropTests {
    @Test func twilioLibraryDrivesTheRESTAPI() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-rest-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteAccountStore(path: dir.appendingPathComponent("parley.db").path)
        let defaults = try store.ensureDefaultAccount()
        let account = defaults.account.sid

        // 12 calls on 2027-01-15 (08:00 + 10 min each), half to bob; one live; a recording on the first.
        let base: Int64 = 1_800_000_000
        var calls: [CallRecord] = []
        for i in 0..<12 {
            let start = base + Int64(i) * 600
            let live = i == 11
            let call = CallRecord(sid: SID.make("CA"), accountSid: account, from: "client:alice",
                                  to: i % 2 == 0 ? "client:bob" : "client:carol", direction: "inbound",
                                  status: live ? .inProgress : (i % 3 == 0 ? .busy : .completed), startTime: start,
                                  answerTime: live ? start + 1 : nil, endTime: live ? nil : start + 40,
                                  duration: live ? nil : 39, createdAt: start, updatedAt: start)
            try store.insertCall(call)
            calls.append(call)
        }
        let wav = dir.appendingPathComponent("r.wav")
        try Data("RIFF-fake-wav".utf8).write(to: wav)
        let recording = RecordingRecord(sid: SID.make("RE"), accountSid: account, callSid: calls[0].sid, duration: 5, channels: 1,
                                        sampleRate: 8000, status: "completed", filePath: wav.path, source: "RecordVerb",
                                        createdAt: base + 50)
        try store.insertRecording(recording)

        let control = CallControlRecorder(live: [calls[11].sid])
        let router = TwilioRESTRouter(store: store, calls: control, publicBaseURL: { "http://127.0.0.1" })
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in await router.handle(request) }
        try server.start()

        let input: JSONObject = [
            "base": .string("http://127.0.0.1:\(server.localPort)"),
            "account": .string(account), "key": .string(defaults.apiKey.sid), "secret": .string(defaults.apiKey.secret),
            "auth_token": .string(defaults.account.authToken),
            "live": .string(calls[11].sid), "first": .string(calls[0].sid), "recording": .string(recording.sid),
        ]
        let result: JSONObject
        do {
            result = try await PythonProcess.run(Self.script, input: .object(input), in: dir).objectValue ?? [:]
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()

        // Applications.
        let app = try #require(result["app"]?.objectValue)
        let appSid = try #require(app.string("sid"))
        #expect(SID.isValid(appSid, prefix: "AP"))
        #expect(app.string("friendly_name") == "Interop app" && app.string("voice_url") == "https://example.com/voice")
        #expect(app.string("voice_method") == "GET" && app.string("status_callback") == "https://example.com/status")
        #expect(app.string("date_created") == app.string("fetched_date_created"))
        #expect(result["listed_apps"] == .array([.string(appSid)]))
        #expect(result["updated_name"] == .string("Renamed") && result["updated_voice_url"] == .string("https://example.com/v2"))
        #expect(result["deleted"] == .bool(true))
        #expect(result["fetch_deleted"]?.objectValue?.int("status") == 404)
        #expect(result["fetch_deleted"]?.objectValue?.int("code") == 20404)
        #expect(try store.application(sid: appSid) == nil)

        // Calls: every page, filters, one call, a page and its successor.
        #expect(result["all_calls"] == .array(calls.reversed().map { .string($0.sid) }))
        #expect(result["pages_read"] == .integer(3))
        let toBob = calls.filter { $0.to == "client:bob" && $0.status == .completed }.reversed().map { JSONValue.string($0.sid) }
        #expect(result["completed_to_bob"] == .array(toBob))
        let window = calls.filter { $0.startTime >= base + 1200 && $0.startTime < base + 3000 }.reversed().map { JSONValue.string($0.sid) }
        #expect(result["time_window"] == .array(window))
        #expect(result["by_day"]?.objectValue?.int("count") == 12)
        let fetched = try #require(result["fetched_call"]?.objectValue)
        #expect(fetched.string("sid") == calls[0].sid && fetched.string("from") == "client:alice")
        #expect(fetched.string("to") == "client:bob" && fetched.string("status") == "busy")
        #expect(fetched.string("start_time") == "2027-01-15T08:00:00+00:00")
        #expect(fetched.string("end_time") == "2027-01-15T08:00:40+00:00")
        #expect(fetched.string("duration") == "39" && fetched.string("direction") == "inbound")
        #expect(result["page_sizes"] == .array([.integer(5), .integer(5)]))

        // The live call: redirect, then hang up, through the test double.
        #expect(result["redirected_status"] == .string("in-progress"))
        #expect(result["hung_up_sid"] == .string(calls[11].sid))
        #expect(control.actions == [.redirect(calls[11].sid, "https://example.com/next", "POST"),
                                     .hangUp(calls[11].sid, "completed")])
        #expect(result["ended_update"]?.objectValue?.int("code") == 21220)

        // Recordings.
        #expect(result["recordings"] == .array([.string(recording.sid)]))
        #expect(result["call_recordings"] == .array([.string(recording.sid)]))
        #expect(result["recording_duration"] == .string("5"))

        // Credentials: the auth token works; a wrong secret is 401/20003.
        #expect(result["by_auth_token"] == .integer(12))
        #expect(result["bad_auth"]?.objectValue?.int("status") == 401)
        #expect(result["bad_auth"]?.objectValue?.int("code") == 20003)
        #expect(result["bad_list_status"] == .integer(401))
    }

    static let script = """
        import json, sys
        from datetime import datetime, timezone
        from twilio.rest import Client
        from twilio.base.exceptions import TwilioException, TwilioRestException

        cfg = json.load(sys.stdin)
        def client(user, password):
            c = Client(user, password, cfg["account"])
            c.api.base_url = cfg["base"]   # the only change an existing backend needs
            return c
        c = client(cfg["key"], cfg["secret"])
        out = {}
        def failure(fn):
            try:
                fn()
                return {"status": 0}
            except TwilioRestException as e:
                return {"status": e.status, "code": e.code, "msg": e.msg}

        app = c.applications.create(friendly_name="Interop app", voice_url="https://example.com/voice",
                                    voice_method="GET", status_callback="https://example.com/status")
        fetched = c.applications(app.sid).fetch()
        out["app"] = {"sid": app.sid, "friendly_name": app.friendly_name, "voice_url": app.voice_url,
                      "voice_method": app.voice_method, "status_callback": app.status_callback,
                      "date_created": app.date_created.isoformat(),
                      "fetched_date_created": fetched.date_created.isoformat()}
        out["listed_apps"] = [a.sid for a in c.applications.list(friendly_name="Interop app")]
        updated = c.applications(app.sid).update(friendly_name="Renamed", voice_url="https://example.com/v2")
        out["updated_name"] = updated.friendly_name
        out["updated_voice_url"] = updated.voice_url
        out["deleted"] = c.applications(app.sid).delete()
        out["fetch_deleted"] = failure(lambda: c.applications(app.sid).fetch())

        pages = 0
        page = c.calls.page(page_size=5)
        sids = []
        while page is not None:
            pages += 1
            sids += [r.sid for r in page]
            page = page.next_page()
        out["pages_read"] = pages
        out["all_calls"] = [r.sid for r in c.calls.stream(page_size=5)]
        out["completed_to_bob"] = [r.sid for r in c.calls.list(status="completed", to="client:bob", page_size=2)]
        out["time_window"] = [r.sid for r in c.calls.list(
            start_time_after=datetime(2027, 1, 15, 8, 20, tzinfo=timezone.utc),
            start_time_before=datetime(2027, 1, 15, 8, 50, tzinfo=timezone.utc))]
        out["by_day"] = {"count": len(c.calls.list(start_time="2027-01-15"))}
        first = c.calls(cfg["first"]).fetch()
        out["fetched_call"] = {"sid": first.sid, "from": first._from, "to": first.to, "status": first.status,
                               "start_time": first.start_time.isoformat(), "end_time": first.end_time.isoformat(),
                               "duration": first.duration, "direction": first.direction}
        p1 = c.calls.page(page_size=5)
        p2 = p1.next_page()
        out["page_sizes"] = [len(list(p1)), len(list(p2))]

        redirected = c.calls(cfg["live"]).update(url="https://example.com/next", method="POST")
        out["redirected_status"] = redirected.status
        out["hung_up_sid"] = c.calls(cfg["live"]).update(status="completed").sid
        out["ended_update"] = failure(lambda: c.calls(cfg["first"]).update(url="https://example.com/next"))

        out["recordings"] = [r.sid for r in c.recordings.list()]
        out["call_recordings"] = [r.sid for r in c.calls(cfg["first"]).recordings.list()]
        out["recording_duration"] = c.recordings(cfg["recording"]).fetch().duration

        out["by_auth_token"] = len(client(cfg["account"], cfg["auth_token"]).calls.list())
        out["bad_auth"] = failure(lambda: client(cfg["key"], "wrong").calls(cfg["first"]).fetch())
        try:
            client(cfg["account"], "0" * 32).calls.list()
            out["bad_list_status"] = 0
        except TwilioException as e:   # the library reports a refused page without the code
            out["bad_list_status"] = e.args[1].status_code
        print(json.dumps(out))
        """
}

/// Runs a Python script from the venv without blocking a cooperative thread: stdin is a file, output
/// goes to files, and termination resumes the task.
enum PythonProcess {
    static func run(_ script: String, input: JSONValue, in dir: URL) async throws -> JSONValue {
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Python.Failure(description: "Python venv missing: \(python.path) not found (scripts/install-deps)")
        }
        let stdinURL = dir.appendingPathComponent("py-in.json"), stdoutURL = dir.appendingPathComponent("py-out.json")
        let stderrURL = dir.appendingPathComponent("py-err.txt")
        try Data(input.serialized()).write(to: stdinURL)
        FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script]
        process.standardInput = try FileHandle(forReadingFrom: stdinURL)
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.runWithDefaultSignals() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let out = try Data(contentsOf: stdoutURL)
        guard status == 0 else {
            let err = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            throw Python.Failure(description: "python exited \(status): \(err.suffix(4000))")
        }
        do {
            return try JSONValue.parse(Array(out), maxDepth: 64)
        } catch {
            throw Python.Failure(description: "python printed non-JSON (\(error)): \(String(decoding: out, as: UTF8.self))")
        }
    }
}

extension JSONObject {
    fileprivate func string(_ key: String) -> String? { self[key]?.stringValue }
    fileprivate func int(_ key: String) -> Int64? { if case .integer(let n)? = self[key] { return n } else { return nil } }
}
