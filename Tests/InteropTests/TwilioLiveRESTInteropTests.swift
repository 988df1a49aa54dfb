import AccessToken
import AudioCore
import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// The official `twilio` library (9.13.0 in the venv) against an in-process `parley-server`
/// engine, for what migrating code does to live calls: `calls.create(to='client:bob', twiml=…)`,
/// `calls(sid).update(twiml=…)`, `calls(sid).delete()`, `recordings(sid).delete()` and the
/// recording as `.mp3` (decoded by PyAV's FFmpeg), `conferences(sid).update(status='completed')`
/// and participant mute, hold and kick. It also checks which fields the library reads as `None`
/// against the list docs/voice.md gives as not applicable. Needs the venv; without it the test
/// fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct TwilioLiveRESTInteropTests {
    static let script = TwilioScriptPrelude.source + """
        import io
        import av, numpy, requests
        from twilio.twiml.voice_response import VoiceResponse

        c = client(cfg["key"], cfg["secret"])
        out = {}
        def nones(instance, names):
            return sorted(n for n in names if getattr(instance, n) is None)
        step = cfg["step"]
        if step == "create":
            call = c.calls.create(to="client:bob", from_="+15550001111",
                                  twiml='<Response><Pause length="30"/></Response>',
                                  status_callback=cfg["app"] + "/status",
                                  status_callback_event=["initiated", "ringing", "answered", "completed"])
            out["call"] = {"sid": call.sid, "status": call.status, "direction": call.direction, "to": call.to}
            out["no_to"] = failure(lambda: c.calls.create(to="", from_="x", url="https://a.example/v"))
            out["pstn"] = failure(lambda: c.calls.create(to="+15551234567", from_="x", url="https://a.example/v"))
        elif step == "update":
            sid = cfg["call"]
            out["delete_live"] = failure(lambda: c.calls(sid).delete())
            out["bad_twiml"] = failure(lambda: c.calls(sid).update(twiml="<Response><Pause></Response>"))
            response = VoiceResponse()
            response.redirect(cfg["app"] + "/next", method="GET")
            out["updated"] = c.calls(sid).update(twiml=response).sid
        elif step == "after":
            sid = cfg["call"]
            out["hangup_ended"] = failure(lambda: c.calls(sid).update(status="completed"))
            out["deleted"] = c.calls(sid).delete()
            out["fetch_deleted"] = failure(lambda: c.calls(sid).fetch())
            child = c.calls(cfg["child"]).fetch()
            out["child"] = {"forwarded_from": child.forwarded_from, "caller_name": child.caller_name,
                            "none": nones(child, cfg["call_fields"])}
            rec = c.recordings(cfg["recording"]).fetch()
            out["recording_none"] = nones(rec, cfg["recording_fields"])
            mp3 = requests.get(rec.media_url + ".mp3")
            out["mp3_type"] = mp3.headers.get("Content-Type")
            container = av.open(io.BytesIO(mp3.content), format="mp3")
            frames = [f.to_ndarray().astype(numpy.float64).reshape(-1) for f in container.decode(audio=0)]
            pcm = numpy.concatenate(frames)
            rate = container.streams.audio[0].rate
            second = pcm[rate // 2: rate // 2 + rate]
            spectrum = numpy.abs(numpy.fft.rfft(second))
            out["mp3"] = {"rate": rate, "seconds": len(pcm) / rate,
                          "peak_hz": float(numpy.argmax(spectrum[1:]) + 1) * rate / len(second)}
            out["recording_deleted"] = c.recordings(cfg["recording"]).delete()
            out["recording_after"] = failure(lambda: c.recordings(cfg["recording"]).fetch())
        elif step == "conference":
            conf = c.conferences.list(friendly_name="interop", status="in-progress")[0]
            part = c.conferences(conf.sid).participants(cfg["bob"])
            out["muted"] = part.update(muted=True).muted
            held = part.update(muted=False, hold=True)
            out["held"] = [held.muted, held.hold]
            out["participant_none"] = nones(part.fetch(), cfg["participant_fields"])
            out["kicked"] = part.delete()
            out["left"] = [p.call_sid for p in c.conferences(conf.sid).participants.list()]
            ended = c.conferences(conf.sid).update(status="completed")
            out["ended"] = [ended.status, ended.reason_conference_ended]
            out["conference_none"] = nones(c.conferences(conf.sid).fetch(), cfg["conference_fields"])
        print(json.dumps(out))
        """

    /// The resource fields the `twilio` library reads, per resource.
    static let callFields = ["sid", "date_created", "date_updated", "parent_call_sid", "account_sid", "to", "to_formatted",
                             "_from", "from_formatted", "phone_number_sid", "status", "start_time", "end_time", "duration",
                             "price", "price_unit", "direction", "answered_by", "api_version", "forwarded_from", "group_sid",
                             "caller_name", "queue_time", "stir_verstat", "trunk_sid", "uri", "subresource_uris"]
    static let recordingFields = ["account_sid", "api_version", "call_sid", "conference_sid", "date_created", "date_updated",
                                  "start_time", "duration", "sid", "price", "price_unit", "status", "channels", "source",
                                  "error_code", "uri", "encryption_details", "subresource_uris", "media_url"]
    static let conferenceFields = ["account_sid", "date_created", "date_updated", "api_version", "friendly_name", "region",
                                   "sid", "status", "uri", "subresource_uris", "reason_conference_ended",
                                   "call_sid_ending_conference"]
    static let participantFields = ["account_sid", "call_sid", "label", "call_sid_to_coach", "coaching", "conference_sid",
                                    "date_created", "date_updated", "end_conference_on_exit", "muted", "hold",
                                    "start_conference_on_enter", "status", "queue_time", "uri"]

    @Test func twilioLibraryCreatesUpdatesAndDeletes() async throws {
        let platform = try InteropPlatform(name: "live-rest")
        var parties: [TestParty] = []
        do {
            try await Self.run(platform, parties: &parties)
        } catch {
            for party in parties { await party.close() }
            await platform.stop()
            throw error
        }
        for party in parties { await party.close() }
        await platform.stop()
    }

    static func run(_ platform: InteropPlatform, parties: inout [TestParty]) async throws {
        let (store, app, dir, base) = (platform.store, platform.app, platform.dir, platform.base)
        let credentials = platform.server.defaultCredentials
        let account = credentials.account.sid
        func token(_ identity: String, application: String? = nil) throws -> String {
            try AccessTokenBuilder.mint(accountSid: account, apiKeySid: credentials.apiKey.sid, apiSecret: credentials.apiKey.secret,
                                        identity: identity, ttl: 600,
                                        grants: [.voice(VoiceGrant(incomingAllow: true, outgoingApplicationSid: application))],
                                        now: Int64(Date().timeIntervalSince1970))
        }
        func python(_ step: String, _ extra: JSONObject = [:]) async throws -> JSONObject {
            var input: JSONObject = ["base": .string(base), "account": .string(account), "key": .string(credentials.apiKey.sid),
                                     "secret": .string(credentials.apiKey.secret), "step": .string(step),
                                     "app": .string(app.baseURL)]
            for k in extra.keys { input[k] = extra[k] }
            return try await PythonProcess.run(Self.script, input: .object(input), in: dir).objectValue ?? [:]
        }
        func strings(_ names: [String]) -> JSONValue { .array(names.map(JSONValue.string)) }
        app.set("/status", "<Response/>")
        app.set("/next", "<Response><Hangup/></Response>")

        // calls.create(twiml=…) rings bob; he answers; update(twiml=…) moves the call on.
        let bob = try TestParty(try await SignalingTestClient(baseURL: base, token: token("bob")))
        parties.append(bob)
        try await bob.signaling.send(.listen, id: "l1")
        _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        let created = try await python("create")
        let call = try #require(created["call"]?.objectValue)
        let sid = try #require(call["sid"]?.stringValue)
        #expect(call["direction"] == .string("outbound-api") && call["to"] == .string("client:bob"))
        #expect(created["no_to"]?.objectValue?["code"] == .integer(21201))
        #expect(created["pstn"]?.objectValue?["code"] == .integer(21211))
        let incoming = try await bob.expectIncoming()
        #expect(incoming.callSid == sid && incoming.from == "+15550001111")
        try await bob.accept(sid)
        try await bob.expectConnected()

        let updated = try await python("update", ["call": .string(sid)])
        #expect(updated["delete_live"]?.objectValue?["code"] == .integer(20009))
        #expect(updated["bad_twiml"]?.objectValue?["code"] == .integer(12100))
        #expect(updated["updated"] == .string(sid))
        _ = try await bob.expectHangup()
        #expect(app.requests("/next").first?.parameters["CallSid"] == sid)

        // A dialed leg (for the fields), and a recording with a real WAV (a 440 Hz tone, 2 s).
        let parent = CallRecord(sid: SID.make("CA"), accountSid: account, from: "client:alice", to: "support", direction: "inbound",
                                status: .completed, startTime: 1_800_000_000, answerTime: 1_800_000_001, endTime: 1_800_000_031,
                                duration: 30, createdAt: 1_800_000_000, updatedAt: 1_800_000_031)
        let child = CallRecord(sid: SID.make("CA"), accountSid: account, parentCallSid: parent.sid, from: "client:alice",
                               to: "client:bob", direction: "outbound-dial", status: .completed, startTime: 1_800_000_001,
                               answerTime: 1_800_000_002, endTime: 1_800_000_031, duration: 29, createdAt: 1_800_000_001,
                               updatedAt: 1_800_000_031)
        try store.insertCall(parent)
        try store.insertCall(child)
        let wav = dir.appendingPathComponent("tone.wav")
        let tone = (0..<16_000).map { Int16(6000 * sin(2 * .pi * 440 * Double($0) / 8000)) }
        try Data(WAVFile(sampleRate: 8000, channels: 1, samples: tone).serialized).write(to: wav)
        let recording = RecordingRecord(sid: SID.make("RE"), accountSid: account, callSid: parent.sid, duration: 2, channels: 1,
                                        sampleRate: 8000, status: "completed", filePath: wav.path, source: "RecordVerb",
                                        createdAt: 1_800_000_020)
        try store.insertRecording(recording)

        let after = try await python("after", ["call": .string(sid), "child": .string(child.sid), "recording": .string(recording.sid),
                                               "call_fields": strings(callFields), "recording_fields": strings(recordingFields)])
        #expect(after["hangup_ended"]?.objectValue?["code"] == .integer(21220))
        #expect(after["deleted"] == .bool(true) && after["fetch_deleted"]?.objectValue?["status"] == .integer(404))
        let childFields = try #require(after["child"]?.objectValue)
        #expect(childFields["forwarded_from"] == .string("support") && childFields["caller_name"] == .string("alice"))
        let notApplicable = try Self.notApplicableFields()
        #expect(Set(notApplicable.keys) == ["calls", "recordings", "conferences", "participants"])
        #expect(childFields["none"] == strings(notApplicable["calls"] ?? []))
        #expect(after["recording_none"] == strings(notApplicable["recordings"] ?? []))
        #expect(after["mp3_type"] == .string("audio/mpeg"))
        let mp3 = try #require(after["mp3"]?.objectValue)
        print("twilio interop: MP3 of a 2 s 440 Hz recording decoded by PyAV: \(mp3)")
        #expect(mp3["rate"] == .integer(8000))
        if case .double(let seconds)? = mp3["seconds"] { #expect(seconds >= 2 && seconds < 2.3) } else { Issue.record("no duration") }
        if case .double(let peak)? = mp3["peak_hz"] { #expect(abs(peak - 440) <= 2) } else { Issue.record("no peak") }
        #expect(after["recording_deleted"] == .bool(true) && after["recording_after"]?.objectValue?["status"] == .integer(404))
        #expect(!FileManager.default.fileExists(atPath: wav.path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("tone.mp3").path))

        // A conference of alice and bob: mute, hold, kick, end.
        app.set("/room", #"<Response><Dial><Conference participantLabel="member">interop</Conference></Dial></Response>"#)
        let room = try store.createApplication(ApplicationDraft(friendlyName: "room", voiceURL: app.baseURL + "/room"),
                                               accountSid: account)
        var members: [String: String] = [:]
        for name in ["alice", "bob"] {
            let party = try TestParty(try await SignalingTestClient(baseURL: base, token: token(name, application: room.sid)))
            parties.append(party)
            members[name] = try await party.invite(to: "interop")
            try await party.connectMedia()
            try await party.expectConnected()
        }
        let conference = try await python("conference", ["bob": .string(members["bob"] ?? ""),
                                                         "participant_fields": strings(participantFields),
                                                         "conference_fields": strings(conferenceFields)])
        #expect(conference["muted"] == .bool(true))
        #expect(conference["held"] == .array([.bool(false), .bool(true)]))
        #expect(conference["participant_none"] == strings(notApplicable["participants"] ?? []))
        #expect(conference["kicked"] == .bool(true) && conference["left"] == strings([members["alice"] ?? ""]))
        #expect(conference["ended"] == .array([.string("completed"), .string("conference-ended-via-api")]))
        #expect(conference["conference_none"] == strings(notApplicable["conferences"] ?? []))
    }

    /// docs/voice.md's list of fields that stay null, per resource: the lines under "Fields that
    /// stay null" reading `- Calls: \`a\`, \`b\` …`.
    static func notApplicableFields() throws -> [String: [String]] {
        let text = try String(contentsOf: Python.packageRoot.appendingPathComponent("docs/voice.md"), encoding: .utf8)
        guard let section = text.components(separatedBy: "### Fields that stay null").dropFirst().first else {
            throw Python.Failure(description: "docs/voice.md has no \"Fields that stay null\" section")
        }
        var result: [String: [String]] = [:]
        for line in section.split(separator: "\n").prefix { !$0.hasPrefix("#") } where line.hasPrefix("- ") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let resource = line[line.index(line.startIndex, offsetBy: 2)..<colon].lowercased()
            let names = line[colon...].split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            result[resource] = names.sorted()
        }
        return result
    }
}
