import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import SIPGateway
import Testing

/// `<Number sendDigits="ww1234">` through a trunk: baresip 1.0 plays the far end (listening on a
/// fixed port, auto-answering, no registration); once it answers, the server presses the keys as
/// RFC 4733 events after the two `w` pauses, and baresip reports each (`received event`, with `-v`).
@Suite(.serialized, .tags(.interop)) struct SIPSendDigitsInteropTests {
    @Test(.timeLimit(.minutes(2))) func numberSendDigitsReachTheFarEndAsTelephoneEvents() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-senddigits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("dumps"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try SIPTrunkInteropTests.freeUDPPort()
        // baresip 1.0 takes a call only for its account's user: the number dialed.
        try Self.configureFarEnd(dir, port: port, user: "+15551234567")
        let phone = try ChildProcess(executable: SIPCallInteropTests.baresip, arguments: ["-v", "-f", dir.path, "-t", "30"])
        defer { phone.kill() }
        let listening = await phone.waitForOutput("baresip is ready", timeout: .seconds(10))

        let (server, serverDir, _) = try SIPCallInteropTests.startServer("senddigits") {
            $0.sipTrunks = [try! SIPTrunk(spec: "carrier=sip:127.0.0.1:\(port)")]
        }
        defer { try? FileManager.default.removeItem(at: serverDir) }
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        app.set("/voice", #"<Response><Dial callerId="+15550001111"><Number sendDigits="ww1234">+15551234567</Number></Dial></Response>"#)
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "digits", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: credentials.account.sid)
        let call = try await SIPToneCall.run(server, applicationSid: application.sid, to: "+15551234567", seconds: 5)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, Self.received(phone).count < 4 { try await Task.sleep(for: .milliseconds(50)) }
        let digits = Self.received(phone)
        let child = try server.store.calls(CallQuery(accountSid: credentials.account.sid, parentCallSid: call.callSid)).first
        print("<Number sendDigits=\"ww1234\"> → baresip: received \(digits); child \(child?.status.rawValue ?? "-")")
        phone.kill()
        await app.shutdown()
        await server.shutdown()
        #expect(listening, "\(phone.stdout.suffix(2000))")
        #expect(digits == ["1", "2", "3", "4"], "\(phone.stdout.suffix(3000))")
    }

    /// `client.calls.create(to=number, send_digits="ww5678", byoc="second")` with the `twilio`
    /// library: the number goes through the trunk named `second` (the first, `first`, leads
    /// nowhere) and baresip receives the keys once it answers.
    @Test(.timeLimit(.minutes(2))) func restSendDigitsAndByocPickTheTrunkAndPressTheKeys() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-rest-senddigits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("dumps"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try SIPTrunkInteropTests.freeUDPPort()
        let nowhere = try SIPTrunkInteropTests.freeUDPPort()
        try Self.configureFarEnd(dir, port: port, user: "+15551234567")
        let phone = try ChildProcess(executable: SIPCallInteropTests.baresip, arguments: ["-v", "-f", dir.path, "-t", "30"])
        defer { phone.kill() }
        let listening = await phone.waitForOutput("baresip is ready", timeout: .seconds(10))

        let (server, serverDir, _) = try SIPCallInteropTests.startServer("restdigits") {
            $0.sipTrunks = [try! SIPTrunk(spec: "first=sip:127.0.0.1:\(nowhere)"), try! SIPTrunk(spec: "second=sip:127.0.0.1:\(port)")]
        }
        defer { try? FileManager.default.removeItem(at: serverDir) }
        let app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
        app.set("/voice", #"<Response><Pause length="4"/><Hangup/></Response>"#)
        app.set("/status", "<Response/>")
        let created = try await SIPRESTCallInteropTests.python(server, app: app, dir: serverDir, [
            "step": .string("create"), "to": .string("+1 (555) 123-4567"),
            "extra": .object(["send_digits": .string("ww5678"), "byoc": .string("second")]),
        ])
        let sid = try #require(created["sid"]?.stringValue, "\(created)")
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, Self.received(phone).count < 4 { try await Task.sleep(for: .milliseconds(50)) }
        let digits = Self.received(phone)
        let call = try await SIPRESTCallInteropTests.finalCall(server, sid: sid)
        print("REST SendDigits=ww5678 Byoc=second → baresip: received \(digits); call \(call?.status.rawValue ?? "-")")
        phone.kill()
        await app.shutdown()
        await server.shutdown()
        #expect(listening, "\(phone.stdout.suffix(2000))")
        #expect(digits == ["5", "6", "7", "8"], "\(phone.stdout.suffix(3000))")
        #expect(call?.status == .completed)
    }

    /// Keys baresip (`-v`) reported as events started: `received event: '1' (end=0)`.
    static func received(_ phone: ChildProcess) -> [String] {
        phone.stdout.split(separator: "\n").filter { $0.contains("received event: '") && $0.contains("end=0") }.compactMap { line in
            line.split(separator: "'").dropFirst().first.map(String.init)
        }
    }

    /// baresip as the far end of a call the server places (no registration): its SIP port fixed
    /// at `port` (with `tlsCertificate`, TLS on `port + 1`, test-peers.md trap 6), account `user`
    /// answering on its own with PCMU (telephone-event at 8000 Hz), a 1 kHz tone as its voice.
    static func configureFarEnd(_ dir: URL, port: Int, user: String, tlsCertificate: URL? = nil) throws {
        let source = dir.appendingPathComponent("tone.wav")
        try Data(SIPCallInteropTests.toneWAV(1_000, seconds: 30)).write(to: source)
        try SIPCallInteropTests.configure(dir, user: user, password: "unused", server: "127.0.0.1:\(port)", source: source,
                                          dumps: dir.appendingPathComponent("dumps"), encryption: nil)
        let configFile = dir.appendingPathComponent("config")
        var config = try String(contentsOf: configFile, encoding: .utf8)
            .replacingOccurrences(of: "sip_listen 127.0.0.1:0", with: "sip_listen 127.0.0.1:\(port)")
        if let tlsCertificate {
            config = config.replacingOccurrences(of: "sip_transports udp", with: "sip_transports udp,tls")
                + "\nsip_certificate \(tlsCertificate.path)\n"
        }
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        try "<sip:\(user)@127.0.0.1:\(port)>;regint=0;answermode=auto;audio_codecs=PCMU/8000/1\n"
            .write(to: dir.appendingPathComponent("accounts"), atomically: true, encoding: .utf8)
    }
}
