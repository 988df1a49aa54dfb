import Foundation
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
        // baresip -v: `received event: '1' (end=0)` as an event starts (`end=1` as it ends).
        func received() -> [String] {
            phone.stdout.split(separator: "\n").filter { $0.contains("received event: '") && $0.contains("end=0") }.compactMap { line in
                line.split(separator: "'").dropFirst().first.map(String.init)
            }
        }
        while ContinuousClock.now < deadline, received().count < 4 { try await Task.sleep(for: .milliseconds(50)) }
        let digits = received()
        let child = try server.store.calls(CallQuery(accountSid: credentials.account.sid, parentCallSid: call.callSid)).first
        print("<Number sendDigits=\"ww1234\"> → baresip: received \(digits); child \(child?.status.rawValue ?? "-")")
        phone.kill()
        await app.shutdown()
        await server.shutdown()
        #expect(listening, "\(phone.stdout.suffix(2000))")
        #expect(digits == ["1", "2", "3", "4"], "\(phone.stdout.suffix(3000))")
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
