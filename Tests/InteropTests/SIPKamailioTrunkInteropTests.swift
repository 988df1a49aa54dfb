import Foundation
import ParleyServer
import ParleyStore
import SIPGateway
import ParleyTestSupport
import Testing

/// Kamailio 5.6 as the trunk: `<Dial><Number>` goes to a Kamailio proxy (a minimal
/// configuration, `KamailioConfiguration.trunkProxy`: Record-Route, relay to the carrier, in-dialog requests by their
/// Route/Request-URI), which relays to a sipp UAS playing the carrier with `-rtp_echo`. The WebRTC
/// caller hears its own tone come back; its hang-up crosses Kamailio as a BYE and ends sipp's
/// scenario. Kamailio runs in the foreground (`-DD -E`) and is stopped by its own PID, failure or not.
@Suite(.serialized, .tags(.interop)) struct SIPKamailioTrunkInteropTests {
    @Test(.timeLimit(.minutes(2))) func dialNumberCrossesKamailioToTheCarrierAndTheEchoIsHeard() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-kamailio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let carrierPort = try SIPTrunkInteropTests.freeUDPPort()
        let carrier = try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "-sn", "uas", "-rtp_echo", "-i", "127.0.0.1", "-p", String(carrierPort), "-mp", String(try SIPTrunkInteropTests.freeUDPPort()),
            "-cp", "0", "-m", "1", "-nostdin", "-timeout", "40",
        ])
        defer { carrier.kill() }
        let proxyPort = try SIPTrunkInteropTests.freeUDPPort()
        let kamailio = try await KamailioConfiguration.trunkProxy(port: proxyPort, carrierPort: carrierPort).start(in: dir)
        defer { kamailio.kill() }
        #expect(kamailio.isRunning, "\(kamailio.stderr.suffix(2000))")

        let (server, serverDir, _) = try SIPCallInteropTests.startServer("kamailio") {
            $0.sipTrunks = [try! SIPTrunk(spec: "kamailio=sip:127.0.0.1:\(proxyPort)")]
        }
        defer { try? FileManager.default.removeItem(at: serverDir) }
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        app.set("/voice", #"<Response><Dial callerId="+15550001111"><Number>+1 555 987 6543</Number></Dial></Response>"#)
        let application = try server.store.createApplication(ApplicationDraft(friendlyName: "via kamailio", voiceURL: app.baseURL + "/voice"),
                                                             accountSid: credentials.account.sid)
        let call = try await SIPToneCall.run(server, applicationSid: application.sid, to: "+15559876543")
        // sipp's own verdict: its -rtp_echo thread can keep the process alive after the scenario ends.
        let carrierDone = await carrier.waitForOutput("Test Terminated", timeout: .seconds(15))
        let echoed = try ToneAudio.dominantFrequency(ofOpus: Array(call.frames.dropFirst(75)), analysisSeconds: 1.5)
        let child = try server.store.calls(CallQuery(accountSid: credentials.account.sid, parentCallSid: call.callSid)).first
        let stillProxying = kamailio.isRunning
        print("<Dial><Number> through Kamailio: alice heard \(call.frames.count) Opus frames, dominant \(echoed) Hz; child "
              + "\(child?.status.rawValue ?? "-"); sipp done \(carrierDone)")
        await app.shutdown()
        await server.shutdown()
        kamailio.kill()
        #expect(stillProxying)
        #expect(abs(echoed - 600) < 20, "\(carrier.stderr.suffix(2000))\n\(kamailio.stderr.suffix(2000))")
        #expect(child?.to == "sip:+15559876543@127.0.0.1:\(proxyPort);user=phone" && child?.status == .completed)
        let succeeded = carrier.stdout.contains(/Successful call\s*\|\s*\d+\s*\|\s*1\b/)
        let failed = carrier.stdout.contains(/Failed call\s*\|\s*\d+\s*\|\s*[1-9]/)
        #expect(carrierDone && succeeded && !failed, "\(carrier.stdout.suffix(3000))\n\(kamailio.stderr.suffix(2000))")
    }
}
