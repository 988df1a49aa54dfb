import AccessToken
import Foundation
import ParleyServer
import ParleyStore
import SIPGateway
import ParleyTestSupport
import Signaling
import Testing

/// The server answering a far end's digest challenge (RFC 3261 §22.2), against sipp 3.6 UASes that
/// challenge: `<Dial><Sip username password>` answers a 401 (sipp's `verifyauth` checks the
/// Authorization against the same username and password), the `<Sip>` URI's `X-` headers and the
/// WebRTC caller's parameters (`X-PH-`) arrive on the INVITE; a trunk with
/// `--sip-trunk-credentials` answers a 407; a second challenge (a wrong password) ends the leg
/// forbidden (31403).
@Suite(.serialized, .tags(.interop)) struct SIPDigestOutboundInteropTests {
    /// A UAS that challenges the first INVITE with `status`, then checks the second one: with
    /// `verify`, sipp's `verifyauth` (Authorization only); `checks` are regexes its headers must
    /// match. A right answer gets 200 with PCMU (RTP echoed by `-rtp_echo`) and waits for the BYE;
    /// a wrong one is challenged again.
    static func scenario(status: Int, verify: Bool, checks: [(header: String, regex: String)]) -> String {
        let challenge = status == 401 ? "WWW-Authenticate" : "Proxy-Authenticate"
        let reason = status == 401 ? "Unauthorized" : "Proxy Authentication Required"
        func response(_ line: String, _ extra: String = "") -> String {
            """
              <send><![CDATA[

                SIP/2.0 \(line)
                [last_Via:]
                [last_From:]
                [last_To:];tag=[pid]SIPpTag01[call_number]
                [last_Call-ID:]
                [last_CSeq:]
                \(extra)Content-Length: 0

              ]]></send>
            """
        }
        let actions = checks.enumerated().map { i, check in
            #"<ereg regexp="\#(check.regex)" search_in="hdr" header="\#(check.header):" check_it="true" assign_to="c\#(i)"/>"#
        }.joined(separator: "\n      ")
        // sipp refuses a variable that is set and never read, unless a <Reference> names it.
        let names = checks.indices.map { "c\($0)" }.joined(separator: ",")
        let references = checks.isEmpty ? "" : "  <Reference variables=\"\(names)\"/>"
        let challengeLine = #"\#(challenge): Digest realm="far.example", nonce="n[pid]x[call_number]", algorithm=MD5, qop="auth"\#n"#
        return """
            <?xml version="1.0" encoding="ISO-8859-1" ?>
            <scenario name="challenging uas">
              <recv request="INVITE"/>
            \(response("\(status) \(reason)", challengeLine))
              <recv request="ACK"/>
              <recv request="INVITE">
                <action>
                  \(verify ? #"<verifyauth assign_to="authvalid" username="u" password="p"/>"# : "")
                  \(actions)
                </action>
              </recv>
              \(verify ? #"<nop hide="true" test="authvalid" next="good"/>"# : #"<nop hide="true" next="good"/>"#)
            \(response("\(status) \(reason)", challengeLine))
              <recv request="ACK" next="done"/>
              <label id="good"/>
              <send><![CDATA[

                SIP/2.0 200 OK
                [last_Via:]
                [last_From:]
                [last_To:];tag=[pid]SIPpTag01[call_number]
                [last_Call-ID:]
                [last_CSeq:]
                Contact: <sip:[local_ip]:[local_port];transport=[transport]>
                Content-Type: application/sdp
                Content-Length: [len]

                v=0
                o=user1 53655765 2353687637 IN IP[local_ip_type] [local_ip]
                s=-
                c=IN IP[media_ip_type] [media_ip]
                t=0 0
                m=audio [media_port] RTP/AVP 0
                a=rtpmap:0 PCMU/8000

              ]]></send>
              <recv request="ACK"/>
              <recv request="BYE"/>
            \(response("200 OK"))
              <label id="done"/>
            \(references)
            </scenario>
            """
    }

    static func startUAS(_ scenario: String, dir: URL) throws -> (ChildProcess, Int) {
        let file = dir.appendingPathComponent("uas-\(UUID().uuidString).xml")
        try scenario.write(to: file, atomically: true, encoding: .utf8)
        let port = try SIPTrunkInteropTests.freeUDPPort()
        let uas = try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "-sf", file.path, "-rtp_echo", "-i", "127.0.0.1", "-p", String(port), "-mp", String(try SIPTrunkInteropTests.freeUDPPort()),
            "-cp", "0", "-m", "1", "-nostdin", "-timeout", "40", "-trace_msg", "-message_file", dir.appendingPathComponent("uas-\(port).log").path,
        ])
        return (uas, port)
    }

    /// alice (WebRTC, with a custom parameter) dials through her application's `twiml`; returns
    /// the dialed leg once final, after alice hung up if it connected.
    static func dial(_ server: PlatformServer, twiml: String, connects: Bool) async throws -> CallRecord? {
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        defer { Task { await app.shutdown() } }
        app.set("/voice", twiml)
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "dial", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: credentials.account.sid)
        let token = try InProcessPlatform.token(server, identity: "alice",
                                                grants: [.voice(VoiceGrant(incomingAllow: false, outgoingApplicationSid: application.sid))])
        let alice = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token))
        defer { Task { await alice.close() } }
        let callSid = try await alice.invite(to: "bob", params: ["Team": "blue"])
        if connects {
            try await alice.connectMedia()
            try await alice.expectConnected()
            try await Task.sleep(for: .milliseconds(500))
            try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let leg = try server.store.calls(CallQuery(accountSid: credentials.account.sid, parentCallSid: callSid)).first,
               leg.status.isFinal { return leg }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try server.store.calls(CallQuery(accountSid: credentials.account.sid, parentCallSid: callSid)).first
    }

    @Test(.timeLimit(.minutes(2))) func dialSipAnswersA401WithItsCredentialsAndCarriesTheHeaders() async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("digest-401")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (uas, port) = try Self.startUAS(Self.scenario(status: 401, verify: true, checks: [
            ("X-Foo", "bar"), ("X-PH-Team", "blue"), ("Authorization", "username=.u.,.*qop=auth.*nc=00000001"),
        ]), dir: dir)
        defer { uas.kill() }
        let leg = try await Self.dial(server, twiml: #"<Response><Dial><Sip username="u" password="p">sip:bob@127.0.0.1:\#(port)?X-Foo=bar</Sip></Dial></Response>"#,
                                      connects: true)
        let done = await uas.wait(timeout: .seconds(10))
        await server.shutdown()
        print("<Sip username password> → sipp 401: leg \(leg?.status.rawValue ?? "-"); sipp exit \(uas.process.terminationStatus)")
        #expect(leg?.status == .completed && leg?.to == "sip:bob@127.0.0.1:\(port)?X-Foo=bar")
        #expect(done && uas.process.terminationStatus == 0, "\(uas.stderr.suffix(3000))\n\(Self.messages(dir))")
    }

    @Test(.timeLimit(.minutes(2))) func aTrunksCredentialsAnswerA407() async throws {
        let dirProbe = FileManager.default.temporaryDirectory.appendingPathComponent("parley-uas-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dirProbe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dirProbe) }
        let (uas, port) = try Self.startUAS(Self.scenario(status: 407, verify: false, checks: [
            ("Proxy-Authorization", "Digest username=.carrier-user., realm=.far.example..*qop=auth"),
        ]), dir: dirProbe)
        defer { uas.kill() }
        let (server, dir, _) = try SIPCallInteropTests.startServer("digest-407") { config in
            config.sipTrunks = [try! SIPTrunk(spec: "carrier=sip:127.0.0.1:\(port)")]
            try! SIPTrunk.applyCredentials("carrier=carrier-user:pw", to: &config.sipTrunks)
        }
        defer { try? FileManager.default.removeItem(at: dir) }
        let leg = try await Self.dial(server, twiml: #"<Response><Dial callerId="+15550001111"><Number>+15551230000</Number></Dial></Response>"#,
                                      connects: true)
        let done = await uas.wait(timeout: .seconds(10))
        await server.shutdown()
        #expect(leg?.status == .completed && leg?.to == "sip:+15551230000@127.0.0.1:\(port);user=phone")
        #expect(done && uas.process.terminationStatus == 0, "\(uas.stderr.suffix(3000))\n\(Self.messages(dirProbe))")
    }

    /// A wrong password is challenged again: the leg ends failed, 31403, and sipp sees one answer only.
    @Test(.timeLimit(.minutes(2))) func aSecondChallengeEndsTheLegForbidden() async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("digest-again")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (uas, port) = try Self.startUAS(Self.scenario(status: 401, verify: true, checks: []), dir: dir)
        defer { uas.kill() }
        let leg = try await Self.dial(server, twiml: #"<Response><Dial><Sip username="u" password="wrong">sip:bob@127.0.0.1:\#(port)</Sip></Dial></Response>"#,
                                      connects: false)
        let done = await uas.wait(timeout: .seconds(10))
        await server.shutdown()
        #expect(leg?.status == .failed && leg?.errorCode == 31403, "\(String(describing: leg))")
        #expect(done && uas.process.terminationStatus == 0, "\(uas.stderr.suffix(3000))\n\(Self.messages(dir))")
    }

    static func messages(_ dir: URL) -> String {
        let logs = (try? FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? []
        return logs.filter { $0.lastPathComponent.hasPrefix("uas-") && $0.pathExtension == "log" }
            .compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined().suffix(4000).description
    }
}
