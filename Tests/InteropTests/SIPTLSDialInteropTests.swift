import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// `<Dial><Sip>sips:…</Sip>` over TLS: baresip 1.0 listens with TLS (a self-signed certificate
/// for 127.0.0.1), auto-answers and plays a tone. With `--sip-tls-ca` naming that certificate the
/// server's TLS connection is accepted and the WebRTC caller hears baresip's tone through it;
/// without it the certificate is refused and the leg fails.
@Suite(.serialized, .tags(.interop)) struct SIPTLSDialInteropTests {
    @Test(.timeLimit(.minutes(2))) func dialSipsReachesATLSBaresipOnlyWhenItsCertificateIsTrusted() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("dumps"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, key) = try await TestCertificate.makeSelfSigned(in: dir)
        let both = dir.appendingPathComponent("baresip.pem")
        try (try String(contentsOfFile: cert, encoding: .utf8) + String(contentsOfFile: key, encoding: .utf8))
            .write(to: both, atomically: true, encoding: .utf8)
        let port = try SIPTrunkInteropTests.freeUDPPort()
        try SIPSendDigitsInteropTests.configureFarEnd(dir, port: port, user: "bob", tlsCertificate: both)
        let phone = try ChildProcess(executable: SIPCallInteropTests.baresip, arguments: ["-f", dir.path, "-t", "40"])
        defer { phone.kill() }
        let ready = await phone.waitForOutput("baresip is ready", timeout: .seconds(10))
        let twiml = "<Response><Dial><Sip>sips:bob@127.0.0.1:\(port + 1)</Sip></Dial></Response>"

        // Trusted: the call connects over TLS and alice hears baresip's 1 kHz tone.
        let (server, serverDir, _) = try SIPCallInteropTests.startServer("sips") { $0.sipTLSTrustRoots = cert }
        defer { try? FileManager.default.removeItem(at: serverDir) }
        let trusted = try await Self.dial(server, twiml: twiml)
        let heard = try ToneAudio.dominantFrequency(ofOpus: Array(trusted.call.frames.dropFirst(50)), analysisSeconds: 1.5)
        let byeReached = await phone.waitForOutput("terminated", timeout: .seconds(10))
        await server.shutdown()

        // Untrusted (the system's roots): the handshake fails and so does the leg.
        let (plain, plainDir, _) = try SIPCallInteropTests.startServer("sips-untrusted")
        defer { try? FileManager.default.removeItem(at: plainDir) }
        let untrusted = try await Self.dial(plain, twiml: twiml, connects: false)
        await plain.shutdown()
        print("<Dial><Sip>sips:…: trusted leg \(trusted.leg?.status.rawValue ?? "-"), alice heard \(heard) Hz; "
              + "untrusted leg \(untrusted.leg?.status.rawValue ?? "-") \(untrusted.leg?.errorCode ?? 0)")
        #expect(ready, "\(phone.stdout.suffix(2000))")
        #expect(abs(heard - 1_000) < 20, "\(phone.stdout.suffix(3000))")
        #expect(trusted.leg?.status == .completed && byeReached)
        // The refused handshake closes the connection: the leg fails at once (31005). Should the
        // handshake stall instead, Timer B ends the leg at 32 s (31408): never connected either way.
        #expect((untrusted.leg?.status == .failed && untrusted.leg?.errorCode == 31005)
                || (untrusted.leg?.status == .noAnswer && untrusted.leg?.errorCode == 31408),
                "\(String(describing: untrusted.leg))\n\(phone.stdout.suffix(1500))")
    }

    struct Dialed {
        var call: SIPToneCall.Outcome
        var leg: CallRecord?
    }

    /// alice's application dials `twiml`; with `connects`, she sends a tone and hangs up
    /// (`SIPToneCall`); otherwise the dial is left to fail. The dialed leg once final.
    static func dial(_ server: PlatformServer, twiml: String, connects: Bool = true) async throws -> Dialed {
        // Long enough for Timer B (32 s) when a connection stalls.
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        app.set("/voice", twiml)
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "sips", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: credentials.account.sid)
        var outcome = SIPToneCall.Outcome(callSid: "", frames: [])
        var caller: TestParty?
        if connects {
            outcome = try await SIPToneCall.run(server, applicationSid: application.sid, to: "bob")
        } else {
            (outcome.callSid, caller) = try await SIPToneCall.invite(server, applicationSid: application.sid, to: "bob")
        }
        let deadline = ContinuousClock.now + .seconds(40)
        var leg: CallRecord?
        while ContinuousClock.now < deadline {
            leg = try server.store.calls(CallQuery(accountSid: credentials.account.sid, parentCallSid: outcome.callSid)).first
            if leg?.status.isFinal == true { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await caller?.close()
        await app.shutdown()
        return Dialed(call: outcome, leg: leg)
    }
}
