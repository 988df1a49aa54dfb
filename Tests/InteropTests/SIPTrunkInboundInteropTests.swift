import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// Calls from a trunk: the `twilio` library declares the carrier's address in an IP access
/// control list (`client.sip.ip_access_control_lists`) and a number with its VoiceUrl
/// (`client.incoming_phone_numbers`: create, list, fetch, update, delete); sipp 3.6's UAC from that
/// address calls the number and is not challenged: the number's VoiceUrl runs the call (`To` the
/// number). A number no listed account declared is challenged (407) as any phone's call.
@Suite(.serialized, .tags(.interop)) struct SIPTrunkInboundInteropTests {
    static let script = TwilioScriptPrelude.source + """
        c = client(cfg["account"], cfg["token"])
        out = {}
        if cfg["step"] == "setup":
            acl = c.sip.ip_access_control_lists.create(friendly_name="carrier")
            acl.ip_addresses.create(friendly_name="carrier sbc", ip_address="127.0.0.1")
            number = c.incoming_phone_numbers.create(phone_number="+1 555 765 4321", voice_url=cfg["app"] + "/first")
            out["created"] = {"sid": number.sid, "phone_number": number.phone_number, "voice_url": number.voice_url,
                              "voice": number.capabilities.get("voice")}
            out["duplicate"] = failure(lambda: c.incoming_phone_numbers.create(phone_number="+15557654321"))
            out["invalid"] = failure(lambda: c.incoming_phone_numbers.create(phone_number="555-CALL"))
            out["missing"] = failure(lambda: c.incoming_phone_numbers.create(voice_url="https://a.example/v"))
            updated = c.incoming_phone_numbers(number.sid).update(voice_url=cfg["app"] + "/voice", voice_method="GET")
            out["updated"] = {"voice_url": updated.voice_url, "voice_method": updated.voice_method}
            out["listed"] = [n.phone_number for n in c.incoming_phone_numbers.list(phone_number="+15557654321")]
            out["fetched"] = c.incoming_phone_numbers(number.sid).fetch().phone_number
        else:
            out["deleted"] = c.incoming_phone_numbers(cfg["sid"]).delete()
            out["after"] = failure(lambda: c.incoming_phone_numbers(cfg["sid"]).fetch())
        print(json.dumps(out))
        """

    @Test(.timeLimit(.minutes(2))) func aTrunkCallToADeclaredNumberRunsItsVoiceUrlWithoutAChallenge() async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("trunk-inbound")
        defer { try? FileManager.default.removeItem(at: dir) }
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        // A first <Pause> would delay the answer (as the vendor's); <Record> answers at once.
        app.set("/voice", #"<Response><Record maxLength="8" playBeep="false"/></Response>"#)
        let sipPort = try #require(server.sipPorts?.udp)
        func python(_ step: String, _ extra: JSONObject = [:]) async throws -> JSONObject {
            var cfg: JSONObject = ["base": .string("http://127.0.0.1:\(server.port)"), "account": .string(credentials.account.sid),
                                   "token": .string(credentials.account.authToken), "app": .string(app.baseURL), "step": .string(step)]
            for k in extra.keys { cfg[k] = extra[k] }
            return try await PythonProcess.run(Self.script, input: .object(cfg), in: dir).objectValue ?? [:]
        }
        func uac(_ number: String) throws -> ChildProcess {
            try ChildProcess(executable: "/usr/bin/sipp", arguments: [
                "-sn", "uac", "-s", number, "127.0.0.1:\(sipPort)", "-i", "127.0.0.1", "-p", String(try SIPTrunkInteropTests.freeUDPPort()),
                "-mp", String(try SIPTrunkInteropTests.freeUDPPort()), "-cp", "0", "-m", "1", "-d", "2000", "-nostdin", "-timeout", "20",
            ])
        }
        let setup = try await python("setup")
        let created = try #require(setup["created"]?.objectValue)
        let sid = try #require(created["sid"]?.stringValue)

        let carrier = try uac("+15557654321")
        defer { carrier.kill() }
        let carrierDone = await carrier.wait(timeout: .seconds(15))
        let voice = app.requests("/voice")
        let undeclared = try uac("+15550000000")
        defer { undeclared.kill() }
        let undeclaredDone = await undeclared.wait(timeout: .seconds(15))
        let teardown = try await python("teardown", ["sid": .string(sid)])
        print("trunk → +15557654321: sipp exit \(carrier.process.terminationStatus); webhooks \(voice.map(\.parameters)); "
              + "undeclared number: sipp exit \(undeclared.process.terminationStatus); \(setup); \(teardown)")
        await app.shutdown()
        await server.shutdown()

        #expect(created["phone_number"] == .string("+15557654321") && created["voice"] == .bool(true))
        #expect(setup["duplicate"]?.objectValue?["code"] == .integer(21422))
        #expect(setup["invalid"]?.objectValue?["code"] == .integer(21421))
        #expect(setup["missing"]?.objectValue?["code"] == .integer(21452))
        #expect(setup["updated"]?.objectValue?["voice_method"] == .string("GET"))
        #expect(setup["listed"] == .array([.string("+15557654321")]) && setup["fetched"] == .string("+15557654321"))
        #expect(carrierDone && carrier.process.terminationStatus == 0, "\(carrier.stderr.suffix(2000))")
        #expect(voice.count == 1)
        #expect(voice.first?.method == "GET" && voice.first?.signatureValid == true)
        #expect(voice.first?.parameters["To"] == "+15557654321" && voice.first?.parameters["Direction"] == "inbound")
        // The undeclared number met the digest challenge sipp's built-in UAC cannot answer.
        #expect(undeclaredDone && undeclared.process.terminationStatus != 0 && app.requests("/voice").count == 1)
        #expect(teardown["deleted"] == .bool(true) && teardown["after"]?.objectValue?["code"] == .integer(20404))
    }
}
