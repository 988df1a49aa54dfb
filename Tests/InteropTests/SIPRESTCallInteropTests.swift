import AudioCore
import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// `POST Calls.json` to SIP, driven by the official `twilio` library (`client.calls.create(to=…,
/// from_=…, url=…)`) against `parley-server --sip`: the server places the call to a sipp 3.6 UAS,
/// fetches the `Url` on answer with Twilio's signed parameters and runs its TwiML on that leg;
/// status callbacks follow the call; a SIP failure ends the call with its mapped error code and
/// `SipResponseCode` on the callback.
@Suite(.serialized, .tags(.interop)) struct SIPRESTCallInteropTests {
    static let script = TwilioScriptPrelude.source + """
        c = client(cfg["key"], cfg["secret"])
        out = {}
        if cfg["step"] == "create":
            call = c.calls.create(to=cfg["to"], from_="+15550001111", url=cfg["app"] + "/voice",
                                  status_callback=cfg["app"] + "/status",
                                  status_callback_event=["initiated", "ringing", "answered", "completed"],
                                  **cfg.get("extra", {}))
            out = {"sid": call.sid, "status": call.status, "direction": call.direction, "to": call.to,
                   "api_version": call.api_version}
        elif cfg["step"] == "hangup":
            out = {"status": c.calls(cfg["sid"]).update(status="completed").status}
        else:
            call = c.calls(cfg["sid"]).fetch()
            listed = [x.sid for x in c.calls.list(limit=20)]
            out = {"status": call.status, "listed": cfg["sid"] in listed, "to": call.to}
        print(json.dumps(out))
        """

    static func python(_ server: PlatformServer, app: TwiMLTestApp, dir: URL, _ input: JSONObject) async throws -> JSONObject {
        let credentials = server.defaultCredentials
        var cfg: JSONObject = ["base": .string("http://127.0.0.1:\(server.port)"), "account": .string(credentials.account.sid),
                               "key": .string(credentials.apiKey.sid), "secret": .string(credentials.apiKey.secret),
                               "app": .string(app.baseURL)]
        for k in input.keys { cfg[k] = input[k] }
        return try await PythonProcess.run(script, input: .object(cfg), in: dir).objectValue ?? [:]
    }

    /// Polls the store until the call's status is final (or `timeout`).
    static func finalCall(_ server: PlatformServer, sid: String, timeout: Duration = .seconds(20)) async throws -> CallRecord? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let call = try server.store.call(sid: sid), call.status.isFinal { return call }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try server.store.call(sid: sid)
    }

    /// Polls the TwiML app until `count` requests reached `path`.
    static func requests(_ app: TwiMLTestApp, _ path: String, count: Int, timeout: Duration = .seconds(10)) async throws
        -> [TwiMLTestApp.Request] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, app.requests(path).count < count { try await Task.sleep(for: .milliseconds(50)) }
        return app.requests(path)
    }

    /// sipp's UAS answers (180, 200 with PCMU, echoing RTP); the call's TwiML pauses a second and
    /// hangs up, which reaches sipp as a BYE and ends its scenario cleanly. Over UDP, and over TCP
    /// (`;transport=tcp`: the server connects to sipp's `-t t1` listener and sends nothing twice).
    @Test(.timeLimit(.minutes(2)), arguments: ["udp", "tcp"])
    func twilioLibraryCallsASippUASAndTheTwiMLRunsOnAnswer(transport: String) async throws {
        let uasPort = try SIPTrunkInteropTests.freeUDPPort()
        let uas = try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "-sn", "uas", "-rtp_echo", "-i", "127.0.0.1", "-p", String(uasPort), "-mp", String(try SIPTrunkInteropTests.freeUDPPort()),
            "-cp", "0", "-m", "1", "-nostdin", "-timeout", "40", "-t", transport == "tcp" ? "t1" : "u1",
        ])
        defer { uas.kill() }
        let (server, dir, _) = try SIPCallInteropTests.startServer("restsip")
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
        app.set("/voice", #"<Response><Pause length="1"/><Hangup/></Response>"#)
        app.set("/status", "<Response/>")
        let to = "sip:service@127.0.0.1:\(uasPort)" + (transport == "tcp" ? ";transport=tcp" : "")

        let created = try await Self.python(server, app: app, dir: dir, ["step": .string("create"), "to": .string(to)])
        let sid = try #require(created["sid"]?.stringValue)
        let call = try await Self.finalCall(server, sid: sid)
        let statuses = try await Self.requests(app, "/status", count: 4)
        let uasDone = await uas.wait(timeout: .seconds(10))
        let fetched = try await Self.python(server, app: app, dir: dir, ["step": .string("fetch"), "sid": .string(sid)])
        let voice = app.requests("/voice")
        print("REST → sipp UAS over \(transport): created \(created); final \(call?.status.rawValue ?? "-"); callbacks "
              + "\(statuses.map { $0.parameters["CallStatus"] ?? "?" }); voice \(voice.first?.parameters ?? [:])")
        await app.shutdown()
        await server.shutdown()

        // The call as it stands when created: the INVITE is on its way.
        #expect(created["status"] == .string("initiated") && created["direction"] == .string("outbound-api"))
        #expect(created["to"] == .string(to) && created["api_version"] == .string("2010-04-01"))
        #expect(call?.status == .completed && (call?.duration ?? 0) >= 1)
        let fetch = try #require(voice.first)
        #expect(fetch.signatureValid)
        #expect(fetch.parameters["CallSid"] == sid && fetch.parameters["Direction"] == "outbound-api")
        #expect(fetch.parameters["CallStatus"] == "in-progress" && fetch.parameters["To"] == to)
        #expect(fetch.parameters["From"] == "+15550001111" && fetch.parameters["ApiVersion"] == "2010-04-01")
        #expect(statuses.map { $0.parameters["CallStatus"] ?? "" } == ["initiated", "ringing", "in-progress", "completed"],
                "\(statuses.map(\.parameters))")
        #expect(statuses.allSatisfy { $0.signatureValid })
        #expect(fetched["status"] == .string("completed") && fetched["listed"] == .bool(true))
        #expect(uasDone && uas.process.terminationStatus == 0, "\(uas.stderr.suffix(2000))")
    }

    /// To a user registered here: `sip:<endpoint>@<server>` reaches baresip's registered contact
    /// (auto-answering, playing a tone), the call's TwiML `<Record>`s what baresip sends, and the
    /// library's `calls(sid).update(status="completed")` hangs up: baresip gets the BYE, and the
    /// recording holds baresip's tone.
    @Test(.timeLimit(.minutes(2))) func twilioLibraryCallsARegisteredBaresipAndHangsUpOverREST() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("restsip-registered")
        defer { try? FileManager.default.removeItem(at: dir) }
        let account = server.defaultCredentials.account.sid
        let endpoint = try server.store.createEndpoint(accountSid: account, username: "carol", password: "s3cret-pw",
                                                       realm: config.sipRealm, alias: "Carol", applicationSid: nil)
        let sipPort = try #require(server.sipPorts?.udp)
        let source = dir.appendingPathComponent("tone.wav")
        try Data(SIPCallInteropTests.toneWAV(1_000, seconds: 30, channels: 2)).write(to: source)
        try SIPCallInteropTests.configure(dir, user: endpoint.username, password: "s3cret-pw", server: "127.0.0.1:\(sipPort)", source: source,
                                          dumps: dir.appendingPathComponent("dumps"), encryption: nil, answers: true)
        let phone = try ChildProcess(executable: SIPCallInteropTests.baresip, arguments: ["-f", dir.path, "-t", "40"])
        defer { phone.kill() }
        let deadline = ContinuousClock.now + .seconds(10)
        var registered = false
        while !registered, ContinuousClock.now < deadline {
            registered = !((try? server.store.sipBindings(accountSid: account, aor: "sip:\(endpoint.username)@127.0.0.1")) ?? []).isEmpty
            if !registered { try await Task.sleep(for: .milliseconds(50)) }
        }
        let app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
        app.set("/voice", #"<Response><Record maxLength="30" playBeep="false" recordingStatusCallback="/recorded"/></Response>"#)
        app.set("/status", "<Response/>")
        app.set("/recorded", "<Response/>")
        let to = "sip:\(endpoint.username)@127.0.0.1:\(sipPort)"
        let created = try await Self.python(server, app: app, dir: dir, ["step": .string("create"), "to": .string(to)])
        let sid = try #require(created["sid"]?.stringValue)
        // Answered when the Url was fetched; three seconds of baresip's tone, then the REST hang-up.
        _ = try await Self.requests(app, "/voice", count: 1)
        try await Task.sleep(for: .seconds(3))
        let hungUp = try await Self.python(server, app: app, dir: dir, ["step": .string("hangup"), "sid": .string(sid)])
        let byeReached = await phone.waitForOutput("terminated", timeout: .seconds(10))
        let call = try await Self.finalCall(server, sid: sid)
        let recording = try server.store.recordings(accountSid: account, callSid: sid).first
        let frequency = try recording.map { try SIPRESTCallInteropTests.dominantFrequency(ofWAVAt: $0.filePath) } ?? 0
        print("REST → registered baresip: \(call?.status.rawValue ?? "-"), duration \(call?.duration ?? 0) s; hang-up answered "
              + "\(hungUp); recording \(recording?.sid ?? "-") \(recording?.duration ?? 0) s, dominant \(frequency) Hz")
        phone.kill()
        await app.shutdown()
        await server.shutdown()
        #expect(registered, "\(phone.stdout.suffix(2000))")
        #expect(app.requests("/voice").first?.parameters["To"] == to && app.requests("/voice").first?.signatureValid == true)
        #expect(call?.status == .completed && (call?.duration ?? 0) >= 3)
        #expect(byeReached, "\(phone.stdout.suffix(2000))")
        #expect(abs(frequency - 1_000) < 20, "\(phone.stdout.suffix(2000))")
    }

    /// The dominant frequency of seconds 0.5–2.5 of a WAV file's first channel; 0 when unreadable.
    static func dominantFrequency(ofWAVAt path: String) throws -> Double {
        guard let wav = try? WAVFile(parsing: [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) else { return 0 }
        let first = stride(from: 0, to: wav.samples.count, by: wav.channels).map { Double(wav.samples[$0]) }
        let samples = Array(first.dropFirst(wav.sampleRate / 2).prefix(wav.sampleRate * 2))
        return ToneAudio.dominantFrequency(SIPCallInteropTests.upsample(samples, by: ToneAudio.rate / wav.sampleRate))
    }

    /// A sipp UAS that answers the INVITE with `code` (and takes the ACK).
    static func rejectingScenario(_ code: Int) -> String {
        """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="reject \(code)">
          <recv request="INVITE"/>
          <send><![CDATA[

        SIP/2.0 \(code) Refused
        [last_Via:]
        [last_From:]
        [last_To:];tag=[pid]SIPpTag01[call_number]
        [last_Call-ID:]
        [last_CSeq:]
        Content-Length: 0

        ]]></send>
          <recv request="ACK"/>
        </scenario>
        """
    }

    /// The SIP failure table (docs/sip.md): the call's status and error code, and the far end's
    /// status as `SipResponseCode` on the completed callback.
    @Test(.timeLimit(.minutes(2)), arguments: [(486, CallStatus.busy, 31486), (603, .failed, 31603), (404, .noAnswer, 31480),
                                                (480, .noAnswer, 31480), (408, .noAnswer, 31408)])
    func aSIPFailureEndsTheCallWithItsMappedCode(code: Int, status: CallStatus, errorCode: Int) async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("restsip-\(code)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let scenario = dir.appendingPathComponent("reject.xml")
        try Self.rejectingScenario(code).write(to: scenario, atomically: true, encoding: .utf8)
        let uasPort = try SIPTrunkInteropTests.freeUDPPort()
        let uas = try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "-sf", scenario.path, "-i", "127.0.0.1", "-p", String(uasPort), "-mp", String(try SIPTrunkInteropTests.freeUDPPort()),
            "-cp", "0", "-m", "1", "-nostdin", "-timeout", "30",
        ])
        defer { uas.kill() }
        let app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
        app.set("/voice", "<Response/>")
        app.set("/status", "<Response/>")
        let created = try await Self.python(server, app: app, dir: dir, ["step": .string("create"),
                                                                          "to": .string("sip:nobody@127.0.0.1:\(uasPort)")])
        let sid = try #require(created["sid"]?.stringValue)
        let call = try await Self.finalCall(server, sid: sid)
        let statuses = try await Self.requests(app, "/status", count: 2)
        let uasDone = await uas.wait(timeout: .seconds(10))
        await app.shutdown()
        await server.shutdown()
        let completed = statuses.last?.parameters ?? [:]
        print("REST → sipp \(code): \(call?.status.rawValue ?? "-") \(call?.errorCode ?? 0); completed callback \(completed)")
        #expect(call?.status == status && call?.errorCode == errorCode)
        #expect(completed["CallStatus"] == status.rawValue && completed["SipResponseCode"] == String(code))
        #expect(completed["ErrorCode"] == String(errorCode))
        #expect(app.requests("/voice").isEmpty)
        #expect(uasDone && uas.process.terminationStatus == 0, "\(uas.stderr.suffix(2000))")
    }
}
