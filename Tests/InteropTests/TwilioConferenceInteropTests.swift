import AccessToken
import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// The official `twilio` Python library lists and fetches a live conference and its participants,
/// then sees it completed once the participant with endConferenceOnExit hangs up. Needs the venv;
/// without it the test fails, it does not skip.
@Suite(.tags(.interop)) struct TwilioConferenceInteropTests {
    static let script = """
        import json, sys
        from twilio.rest import Client
        from twilio.base.exceptions import TwilioRestException

        cfg = json.load(sys.stdin)
        c = Client(cfg["key"], cfg["secret"], cfg["account"])
        c.api.base_url = cfg["base"]
        out = {}
        if cfg["step"] == "live":
            live = c.conferences.list(status="in-progress", friendly_name="interop")
            out["live"] = [x.sid for x in live]
            conf = c.conferences(live[0].sid).fetch()
            out["conference"] = {"sid": conf.sid, "friendly_name": conf.friendly_name, "status": conf.status,
                                 "account_sid": conf.account_sid}
            parts = c.conferences(conf.sid).participants.list()
            out["participants"] = sorted([{"call_sid": p.call_sid, "muted": p.muted, "label": p.label,
                                           "end_conference_on_exit": p.end_conference_on_exit,
                                           "start_conference_on_enter": p.start_conference_on_enter,
                                           "status": p.status, "conference_sid": p.conference_sid} for p in parts],
                                         key=lambda p: p["label"] or "")
            out["one"] = c.conferences(conf.sid).participants(parts[0].call_sid).fetch().call_sid
            try:
                c.conferences("CF" + "0" * 32).fetch()
                out["missing"] = 0
            except TwilioRestException as e:
                out["missing"] = e.status
        else:
            done = c.conferences.list(status="completed")
            out["completed"] = [{"sid": x.sid, "reason": x.reason_conference_ended,
                                 "ending": x.call_sid_ending_conference} for x in done]
            out["participants_after"] = len(c.conferences(done[0].sid).participants.list())
        print(json.dumps(out))
        """

    @Test func twilioLibraryListsConferencesAndParticipants() async throws {
        let platform = try InteropPlatform(name: "conf-interop")
        let (dir, store, server, app, base) = (platform.dir, platform.store, platform.server, platform.app, platform.base)
        let credentials = server.defaultCredentials
        app.set("/host", #"<Response><Dial><Conference participantLabel="host" endConferenceOnExit="true">interop</Conference></Dial></Response>"#)
        app.set("/guest", #"<Response><Dial><Conference participantLabel="guest" muted="true" startConferenceOnEnter="false">interop</Conference></Dial></Response>"#)
        func application(_ path: String) throws -> String {
            try store.createApplication(ApplicationDraft(friendlyName: path, voiceURL: app.baseURL + path),
                                        accountSid: credentials.account.sid).sid
        }
        func join(_ identity: String, _ path: String) async throws -> (TestParty, String) {
            let token = try AccessTokenBuilder.mint(
                accountSid: credentials.account.sid, apiKeySid: credentials.apiKey.sid, apiSecret: credentials.apiKey.secret,
                identity: identity, ttl: 600,
                grants: [.voice(VoiceGrant(incomingAllow: false, outgoingApplicationSid: try application(path)))],
                now: Int64(Date().timeIntervalSince1970))
            let party = try TestParty(try await SignalingTestClient(baseURL: base, token: token))
            let callSid = try await party.invite(to: "interop")
            try await party.connectMedia()
            try await party.expectConnected()
            return (party, callSid)
        }
        func rest(_ step: String) async throws -> JSONObject {
            let input: JSONObject = ["base": .string(base), "account": .string(credentials.account.sid),
                                     "key": .string(credentials.apiKey.sid), "secret": .string(credentials.apiKey.secret),
                                     "step": .string(step)]
            return try await PythonProcess.run(Self.script, input: .object(input), in: dir).objectValue ?? [:]
        }
        let (guest, guestSid) = try await join("guest", "/guest")
        let (host, hostSid) = try await join("host", "/host")

        let live = try await rest("live")
        let conference = try #require(live["conference"]?.objectValue)
        let conferenceSid = try #require(conference["sid"]?.stringValue)
        #expect(SID.isValid(conferenceSid, prefix: "CF"))
        #expect(live["live"] == .array([.string(conferenceSid)]))
        #expect(conference["friendly_name"] == .string("interop") && conference["status"] == .string("in-progress"))
        #expect(conference["account_sid"] == .string(credentials.account.sid))
        guard case .array(let participants)? = live["participants"] else { throw Python.Failure(description: "no participants") }
        let expected: [JSONValue] = [
            .object(["call_sid": .string(guestSid), "muted": .bool(true), "label": .string("guest"),
                     "end_conference_on_exit": .bool(false), "start_conference_on_enter": .bool(false),
                     "status": .string("connected"), "conference_sid": .string(conferenceSid)]),
            .object(["call_sid": .string(hostSid), "muted": .bool(false), "label": .string("host"),
                     "end_conference_on_exit": .bool(true), "start_conference_on_enter": .bool(true),
                     "status": .string("connected"), "conference_sid": .string(conferenceSid)]),
        ]
        #expect(participants == expected)
        #expect([guestSid, hostSid].map(JSONValue.string).contains(live["one"] ?? .null))
        #expect(live["missing"] == .integer(404))

        try await host.signaling.send(.hangup(Hangup(callSid: hostSid)))
        _ = try await guest.expectHangup(timeout: .seconds(5))  // its document ends after the <Dial>
        let ended = try await rest("ended")
        #expect(ended["completed"] == .array([.object(["sid": .string(conferenceSid),
                                                        "reason": .string("participant-with-end-conference-on-exit-left"),
                                                        "ending": .string(hostSid)])]))
        #expect(ended["participants_after"] == .integer(0))
        await guest.close()
        await host.close()
        await platform.stop()
    }
}
