import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// A user registered from two phones is rung on both (RFC 3261 §16.6 parallel forking, as Twilio
/// and Plivo ring every registered device): two baresip 1.0 register as the same endpoint, one
/// answering on its own and one left ringing; the REST-created call is answered by the first and
/// the second is cancelled (baresip reports the session closed, having never answered).
@Suite(.serialized, .tags(.interop)) struct SIPForkingInteropTests {
    @Test(.timeLimit(.minutes(2))) func bothRegisteredPhonesRingAndTheLoserIsCancelled() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("forking")
        defer { try? FileManager.default.removeItem(at: dir) }
        let account = server.defaultCredentials.account.sid
        let endpoint = try server.store.createEndpoint(accountSid: account, username: "dana", password: "s3cret-pw",
                                                       realm: config.sipRealm, alias: "Dana", applicationSid: nil)
        let sipPort = try #require(server.sipPorts?.udp)
        var phones: [ChildProcess] = []
        defer { for phone in phones { phone.kill() } }
        for (name, answers) in [("desk", true), ("mobile", false)] {
            let phoneDir = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: phoneDir.appendingPathComponent("dumps"), withIntermediateDirectories: true)
            let source = phoneDir.appendingPathComponent("tone.wav")
            try Data(SIPCallInteropTests.toneWAV(1_000, seconds: 30, channels: 2)).write(to: source)
            try SIPCallInteropTests.configure(phoneDir, user: endpoint.username, password: "s3cret-pw", server: "127.0.0.1:\(sipPort)",
                                              source: source, dumps: phoneDir.appendingPathComponent("dumps"), encryption: nil, answers: true)
            if !answers {
                // Registered, but it rings until someone answers it.
                let accounts = phoneDir.appendingPathComponent("accounts")
                try String(contentsOf: accounts, encoding: .utf8).replacingOccurrences(of: "answermode=auto", with: "answermode=manual")
                    .write(to: accounts, atomically: true, encoding: .utf8)
            }
            phones.append(try ChildProcess(executable: SIPCallInteropTests.baresip, arguments: ["-f", phoneDir.path, "-t", "40"]))
        }
        let aor = "sip:\(endpoint.username)@127.0.0.1"
        let deadline = ContinuousClock.now + .seconds(10)
        var bindings = 0
        while bindings < 2, ContinuousClock.now < deadline {
            bindings = ((try? server.store.sipBindings(accountSid: account, aor: aor)) ?? []).count
            if bindings < 2 { try await Task.sleep(for: .milliseconds(50)) }
        }
        let app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
        app.set("/voice", #"<Response><Pause length="2"/><Hangup/></Response>"#)
        app.set("/status", "<Response/>")
        let to = "sip:\(endpoint.username)@127.0.0.1:\(sipPort)"
        let created = try await SIPRESTCallInteropTests.python(server, app: app, dir: dir, ["step": .string("create"), "to": .string(to)])
        let sid = try #require(created["sid"]?.stringValue, "\(created)")
        let call = try await SIPRESTCallInteropTests.finalCall(server, sid: sid)
        let (desk, mobile) = (phones[0], phones[1])
        let mobileRang = await mobile.waitForOutput("Incoming call", timeout: .seconds(5))
        let mobileClosed = await mobile.waitForOutput("session closed", timeout: .seconds(10))
        print("forked call to \(bindings) bindings: \(call?.status.rawValue ?? "-"), \(call?.duration ?? 0) s; "
              + "mobile rang \(mobileRang), closed \(mobileClosed)")
        for phone in phones { phone.kill() }
        await app.shutdown()
        await server.shutdown()
        #expect(bindings == 2)
        #expect(call?.status == .completed && (call?.duration ?? 0) >= 2, "\(desk.stdout.suffix(2000))")
        #expect(app.requests("/voice").count == 1)
        #expect(mobileRang && mobileClosed, "\(mobile.stdout.suffix(3000))")
        #expect(!mobile.stdout.contains("Call established"), "\(mobile.stdout.suffix(3000))")
        #expect(desk.stdout.contains("Call established"), "\(desk.stdout.suffix(3000))")
    }
}
