import AccessToken
import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// What happens inside the dialog of a call the server places, with sipp 3.6 as the dialed phone
/// (a UAS scenario of `SIPDialedScenarios`): its re-INVITEs hold and resume (RFC 3264 §8.4), the
/// caller's hold re-INVITEs it `a=sendonly`/`a=sendrecv`, its INFO keys (RFC 6086) reach the
/// call's `<Gather>`, and a session timer its 200 asks for (RFC 4028 §7.2) is refreshed by us.
@Suite(.serialized, .tags(.interop)) struct SIPDialedDialogInteropTests {
    typealias D = SIPDialedScenarios

    /// alice (WebRTC) `<Dial><Sip>`s sipp: sipp holds (`sendonly`, answered `recvonly`, alice hears
    /// hold music) and resumes (`sendrecv`); then alice holds and resumes, and sipp gets our
    /// re-INVITEs `a=sendonly` and `a=sendrecv`; sipp's BYE ends the call.
    @Test(.timeLimit(.minutes(2))) func theDialedPhoneHoldsAndResumesAndIsHeldWhenTheCallerHolds() async throws {
        let uasPort = try SIPTrunkInteropTests.freeUDPPort()
        let (server, dir, _) = try SIPCallInteropTests.startServer("sipdialedhold")
        defer { try? FileManager.default.removeItem(at: dir) }
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        defer { Task { await app.shutdown() } }
        app.set("/voice", "<Response><Dial><Sip>sip:service@127.0.0.1:\(uasPort)</Sip></Dial></Response>")
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "to sipp", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: credentials.account.sid)
        let probe = try UDPProbe()
        typealias S = SIPDialogScenarios
        let body = D.answer(sdpPort: probe.port)
            + "<pause milliseconds=\"2000\"/>"
            + D.reinvite(cseq: 1, sdpPort: probe.port, direction: "sendonly", version: 2, expected: "a=recvonly", variable: "held")
            + "<pause milliseconds=\"3000\"/>"
            + D.reinvite(cseq: 2, sdpPort: probe.port, direction: "sendrecv", version: 3, expected: "a=sendrecv", variable: "resumed")
            + S.answerServerReinvite("a=sendonly", variable: "heldbyus", sdpPort: probe.port, direction: "recvonly", version: 4)
            + S.answerServerReinvite("a=sendrecv", variable: "resumedbyus", sdpPort: probe.port, direction: "sendrecv", version: 5)
            + "<pause milliseconds=\"500\"/>"
            + D.request("BYE", cseq: 3) + "<recv response=\"200\"/>"
        let sipp = try D.start(D.scenario("dialedhold", body, variables: ["held", "resumed", "heldbyus", "resumedbyus"]), port: uasPort, dir: dir)
        defer { sipp.kill() }

        let (callSid, alice) = try await SIPToneCall.invite(server, applicationSid: application.sid, to: "sipp")
        let heard = HeardFrames()
        do {
            try await alice.connectMedia()
            try await alice.expectConnected()
        } catch {
            await alice.close()
            Issue.record("alice's call did not connect: \(SIPDialogInteropTests.log(sipp, dir: dir))")
            throw error
        }
        let start = ContinuousClock.now
        let peer = alice.peer
        let listener = Task {
            for await packet in peer.audio { heard.frames.withLock { $0.append((ContinuousClock.now - start, packet.payload.count)) } }
        }
        let talker = Task { try await ToneAudio.send(alice.peer, frequency: 600, seconds: 25) }
        defer {
            listener.cancel()
            talker.cancel()
        }
        func loud() -> Int { heard.frames.withLock { $0.filter { $0.1 > 40 }.count } }
        // alice's tone reaches the phone's address; the phone sends nothing, so loud frames at alice are hold music.
        let flowing = await SIPDialogInteropTests.eventually(.seconds(8)) { probe.count() > 20 }
        let holdMusic = await SIPDialogInteropTests.eventually(.seconds(8)) { loud() > 25 }
        // sipp resumed (its second re-INVITE acknowledged): alice holds, then resumes.
        let resumed = await SIPDialogInteropTests.eventually(.seconds(10)) { SIPDialogInteropTests.messages(dir).contains("CSeq: 2 ACK") }
        try await alice.signaling.send(.hold(Hold(callSid: callSid, hold: true)))
        let reinvites = { SIPDialogInteropTests.messages(dir).components(separatedBy: "INVITE sip:phone@").count - 1 }
        let sawHold = await SIPDialogInteropTests.eventually(.seconds(8)) { reinvites() >= 1 }
        try await alice.signaling.send(.hold(Hold(callSid: callSid, hold: false)))
        let sawResume = await SIPDialogInteropTests.eventually(.seconds(8)) { reinvites() >= 2 }
        let ended = await sipp.wait(timeout: .seconds(20))
        let hangup = try? await alice.expectHangup(timeout: .seconds(5))
        print("<Dial><Sip> to a sipp UAS that holds: alice's tone at the phone \(flowing), hold music at alice \(holdMusic) (\(loud()) loud frames), "
              + "sipp resumed \(resumed), our re-INVITEs on alice's hold \(sawHold) and resume \(sawResume); alice hung up by the BYE \(hangup != nil)")
        await alice.close()
        await server.shutdown()
        #expect(flowing)
        #expect(holdMusic)
        #expect(resumed && sawHold && sawResume, "\(SIPDialogInteropTests.messages(dir).suffix(6000))")
        #expect(ended && sipp.process.terminationStatus == 0, "\(SIPDialogInteropTests.log(sipp, dir: dir))")
        #expect(hangup != nil)
    }

    /// `POST Calls.json` to sipp with TwiML `<Gather>`: sipp's 200 asks for a 90 s session timer
    /// with us as refresher (`refresher=uac`); its INFO key (`Signal=7`) reaches the `<Gather>`, and
    /// at half the interval (45 s, RFC 4028 §7.4) sipp gets our refresh re-INVITE with `Session-Expires`.
    @Test(.timeLimit(.minutes(2))) func infoKeysFromTheDialedPhoneReachTheGatherAndWeRefreshItsSession() async throws {
        let uasPort = try SIPTrunkInteropTests.freeUDPPort()
        let (server, dir, _) = try SIPCallInteropTests.startServer("sipdialedinfo")
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
        defer { Task { await app.shutdown() } }
        app.set("/voice", #"<Response><Gather numDigits="1" action="/digits" timeout="20"/></Response>"#)
        app.set("/digits", #"<Response><Pause length="80"/></Response>"#)
        app.set("/status", "<Response/>")
        let probe = try UDPProbe()
        typealias S = SIPDialogScenarios
        let body = D.answer(sdpPort: probe.port, headers: "Supported: timer\nRequire: timer\nSession-Expires: 90;refresher=uac")
            + "<pause milliseconds=\"1500\"/>"
            + D.request("INFO", cseq: 1, body: "Signal=7\nDuration=160", contentType: "application/dtmf-relay") + "<recv response=\"200\"/>"
            + S.answerServerReinvite("90;refresher=uac", variable: "refresh", header: "Session-Expires:", sdpPort: probe.port,
                                     direction: "sendrecv", version: 2, headers: "Session-Expires: 90;refresher=uac\nRequire: timer",
                                     timeout: 60000)
            + D.request("BYE", cseq: 2) + "<recv response=\"200\"/>"
        let sipp = try D.start(D.scenario("dialedinfo", body, variables: ["refresh"]), port: uasPort, dir: dir, timeout: 90)
        defer { sipp.kill() }
        let start = ContinuousClock.now
        let created = try await SIPRESTCallInteropTests.python(server, app: app, dir: dir,
                                                               ["step": .string("create"), "to": .string("sip:service@127.0.0.1:\(uasPort)")])
        let sid = try #require(created["sid"]?.stringValue)
        let digits = try await SIPRESTCallInteropTests.requests(app, "/digits", count: 1, timeout: .seconds(15)).first?.parameters["Digits"]
        let ended = await sipp.wait(timeout: .seconds(70))
        let endedAt = ContinuousClock.now - start
        let call = try await SIPRESTCallInteropTests.finalCall(server, sid: sid, timeout: .seconds(10))
        print("Calls.json to a sipp UAS: the <Gather> got \(digits ?? "nothing") from its INFO; our session refresh answered, "
              + "sipp's BYE at \(endedAt); call \(call?.status.rawValue ?? "-")")
        await server.shutdown()
        #expect(digits == "7")
        #expect(ended && sipp.process.terminationStatus == 0, "\(SIPDialogInteropTests.log(sipp, dir: dir))")
        // §7.4: the refresh at half of 90 s, not before.
        #expect(endedAt > .seconds(44))
        #expect(call?.status == .completed)
    }

    /// A phone without telephone-event gets keys as INFO (RFC 6086): `Calls.json` with
    /// `SendDigits=1#` to a sipp UAS whose answer has PCMU alone; sipp must receive `Signal=1`,
    /// then `Signal=#`, each as `application/dtmf-relay`, and answers each 200.
    @Test(.timeLimit(.minutes(2))) func keysGoAsInfoToAPhoneWithoutTelephoneEvent() async throws {
        let uasPort = try SIPTrunkInteropTests.freeUDPPort()
        let (server, dir, _) = try SIPCallInteropTests.startServer("sipinfokeys")
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
        defer { Task { await app.shutdown() } }
        app.set("/voice", #"<Response><Pause length="3"/><Hangup/></Response>"#)
        app.set("/status", "<Response/>")
        let probe = try UDPProbe()
        typealias S = SIPDialogScenarios
        func info(_ key: String, _ variable: String) -> String {
            """
              <recv request="INFO">
                <action>
                  <ereg regexp="application/dtmf-relay" search_in="hdr" header="Content-Type:" check_it="true" assign_to="\(variable)type"/>
                  <ereg regexp="Signal=\(key)" search_in="body" check_it="true" assign_to="\(variable)"/>
                </action>
              </recv>
              <send><![CDATA[
                SIP/2.0 200 OK
                \(S.replyHeaders)
                Content-Length: 0

              ]]></send>
            """
        }
        let body = D.answer(sdpPort: probe.port, events: false) + info("1", "first") + info("#", "second") + S.answerBye
        let sipp = try D.start(D.scenario("infokeys", body, variables: ["first", "firsttype", "second", "secondtype"]), port: uasPort, dir: dir)
        defer { sipp.kill() }
        let created = try await SIPRESTCallInteropTests.python(server, app: app, dir: dir, [
            "step": .string("create"), "to": .string("sip:service@127.0.0.1:\(uasPort)"),
            "extra": .object(["send_digits": .string("1#")]),
        ])
        let sid = try #require(created["sid"]?.stringValue, "\(created)")
        let ended = await sipp.wait(timeout: .seconds(20))
        let call = try await SIPRESTCallInteropTests.finalCall(server, sid: sid, timeout: .seconds(10))
        print("SendDigits=1# to a phone without telephone-event: sipp ended \(ended), status \(ended ? Int(sipp.process.terminationStatus) : -1); "
              + "call \(call?.status.rawValue ?? "-")")
        await server.shutdown()
        #expect(ended && sipp.process.terminationStatus == 0, "\(SIPDialogInteropTests.log(sipp, dir: dir))")
        #expect(call?.status == .completed)
    }
}
