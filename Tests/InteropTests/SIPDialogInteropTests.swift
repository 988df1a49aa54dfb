import AccessToken
import Foundation
import Glibc
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// What happens inside a phone's call, against sipp 3.6 as the phone (scenarios in
/// `SIPDialogScenarios`) and a WebRTC client (`bob`) on the other side: hold, resume and a new
/// address by the phone's re-INVITEs (RFC 3264 §8.4), hold and resume of the phone by ours when
/// bob holds, session-timer headers (RFC 4028), keys in INFO (RFC 6086), and CANCEL before the
/// answer with the 487 sent again until its ACK (Timer G, RFC 3261 §17.2.1).
@Suite(.serialized, .tags(.interop)) struct SIPDialogInteropTests {
    /// Runs sipp with `scenario` against the server as endpoint `user`; the caller waits for and kills it.
    static func startSipp(_ scenario: String, port: Int, user: String, password: String, service: String, dir: URL,
                          timeout: Int = 60, extra: [String] = []) throws -> ChildProcess {
        let file = dir.appendingPathComponent("scenario-\(UUID().uuidString).xml")
        // sipp does not expand a field inside `[authentication …]`: the endpoint goes in as text.
        try scenario.replacingOccurrences(of: "[field0]", with: user).replacingOccurrences(of: "[field1]", with: password)
            .write(to: file, atomically: true, encoding: .utf8)
        return try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "127.0.0.1:\(port)", "-sf", file.path, "-s", service, "-m", "1", "-i", "127.0.0.1",
            "-p", "\(try SIPTrunkInteropTests.freeUDPPort())",
            "-mp", "0", "-cp", "0", "-t", "u1", "-timeout", "\(timeout)", "-timeout_error", "-nostdin", "-trace_err", "-trace_msg",
            "-message_file", dir.appendingPathComponent("messages.log").path,
            "-error_file", dir.appendingPathComponent("errors.log").path,
        ] + extra)
    }

    static func log(_ sipp: ChildProcess, dir: URL) -> String {
        let errors = (try? String(contentsOf: dir.appendingPathComponent("errors.log"), encoding: .utf8)) ?? ""
        return "exit \(sipp.isRunning ? -1 : Int(sipp.process.terminationStatus))\n\(sipp.stderr.suffix(1500))\n\(errors.suffix(2500))\n"
            + "sipp's messages:\n\(messages(dir).suffix(6000))"
    }

    static func messages(_ dir: URL) -> String {
        (try? String(contentsOf: dir.appendingPathComponent("messages.log"), encoding: .utf8)) ?? ""
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    static func eventually(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    /// A server, an endpoint `alice`, and bob listening as a WebRTC client.
    /// UDP and TCP share `sipPort`. With `voiceURL`, the endpoint's application (Plivo `app_id`) runs the call's TwiML there.
    static func setUp(_ name: String, voiceURL: String? = nil) async throws
        -> (server: PlatformServer, dir: URL, bob: TestParty, user: String, sipPort: Int) {
        let (server, dir, config) = try SIPCallInteropTests.startServer(name)
        let account = server.defaultCredentials.account.sid
        let application = try voiceURL.map {
            try server.store.createApplication(ApplicationDraft(friendlyName: "SIP app", voiceURL: $0), accountSid: account)
        }
        let endpoint = try server.store.createEndpoint(accountSid: account, username: "alice", password: "s3cret-pw",
                                                       realm: config.sipRealm, alias: "Alice", applicationSid: application?.sid)
        let token = try InProcessPlatform.token(server, identity: "bob", grants: [.voice(VoiceGrant(incomingAllow: true))])
        let bob = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token),
                                configuration: SIPCallInteropTests.opusOnly)
        try await bob.signaling.send(.listen)
        _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        return (server, dir, bob, endpoint.username, try #require(server.sipPorts?.udp))
    }

    /// Also: `Session-Expires`/`Require: timer` in the 200, and a refresh by UPDATE.
    @Test(.timeLimit(.minutes(2))) func thePhoneHoldsResumesAndMovesAndIsHeldWhenTheClientHolds() async throws {
        let (server, dir, bob, user, sipPort) = try await Self.setUp("siphold")
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try UDPProbe(), second = try UDPProbe()
        typealias S = SIPDialogScenarios
        let body = S.invite(sdpPort: first.port, headers: "Supported: timer\nSession-Expires: 1800;refresher=uac",
                            answered: S.answeredAndAcknowledged(checks: """
                                <ereg regexp="1800;refresher=uac" search_in="hdr" header="Session-Expires:" check_it="true" assign_to="se"/>
                                <ereg regexp="timer" search_in="hdr" header="Require:" check_it="true" assign_to="req"/>
                                """))
            + "<pause milliseconds=\"3000\"/>"
            + S.inDialog("INVITE", cseq: 3, body: S.sdp(port: first.port, direction: "sendonly", version: 2), contentType: "application/sdp")
            + S.expect200("a=recvonly", variable: "held") + S.ack(cseq: 3)
            + "<pause milliseconds=\"3000\"/>"
            + S.inDialog("INVITE", cseq: 4, body: S.sdp(port: second.port, direction: "sendrecv", version: 3), contentType: "application/sdp")
            + S.expect200("a=sendrecv", variable: "resumed") + S.ack(cseq: 4)
            + S.answerServerReinvite("a=sendonly", variable: "heldbyus", sdpPort: second.port, direction: "recvonly", version: 4)
            + S.answerServerReinvite("a=sendrecv", variable: "resumedbyus", sdpPort: second.port, direction: "sendrecv", version: 5)
            + "<pause milliseconds=\"500\"/>"
            // A session refresh by UPDATE without a body (RFC 4028 §7.4, RFC 3311): 200 with the new interval.
            + S.inDialog("UPDATE", cseq: 5, headers: "Supported: timer\nSession-Expires: 900;refresher=uac")
            + S.expect200("900;refresher=uac", variable: "updated", header: "Session-Expires:")
            + S.inDialog("BYE", cseq: 6) + "<recv response=\"200\"/>"
        let sipp = try Self.startSipp(S.scenario("hold", body, variables: ["se", "req", "held", "resumed", "heldbyus", "resumedbyus",
                                                                            "updated"]),
                                      port: sipPort, user: user, password: "s3cret-pw", service: "bob", dir: dir)
        defer { sipp.kill() }

        let incoming: Incoming
        do { incoming = try await bob.expectIncoming() } catch {
            Issue.record("no call reached bob: \(Self.log(sipp, dir: dir))\n\(Self.messages(dir).suffix(3000))")
            throw error
        }
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        let start = ContinuousClock.now
        // What bob hears (time, payload size): the phone sends nothing, so loud frames are hold music.
        let heard = HeardFrames()
        let peer = bob.peer
        let listener = Task {
            for await packet in peer.audio { heard.frames.withLock { $0.append((ContinuousClock.now - start, packet.payload.count)) } }
        }
        let talker = Task { try await ToneAudio.send(bob.peer, frequency: 600, seconds: 25) }
        defer {
            listener.cancel()
            talker.cancel()
        }
        func loud(after: Duration) -> Int { heard.frames.withLock { $0.filter { $0.0 > after && $0.1 > 40 }.count } }

        // Bob's tone reaches the phone's first address.
        let flowing = await Self.eventually(.seconds(8)) { first.count() > 20 }
        // The phone holds (sendonly at 3 s): bob hears hold music, the first address nothing more.
        let holdMusic = await Self.eventually(.seconds(8)) { loud(after: .zero) > 25 }
        let heldAt = ContinuousClock.now - start
        first.reset()
        // It resumes at a new address (3 s later): bob's tone goes there, not to the first.
        let moved = await Self.eventually(.seconds(8)) { second.count() > 20 }
        let sentToFirstWhileHeld = first.count()
        // Bob holds and resumes: the phone gets re-INVITEs with a=sendonly, then a=sendrecv.
        try await bob.signaling.send(.hold(Hold(callSid: incoming.callSid, hold: true)))
        let sawHoldReinvite = await Self.eventually(.seconds(8)) { Self.messages(dir).contains("INVITE sip:\(user)@") }
        try await bob.signaling.send(.hold(Hold(callSid: incoming.callSid, hold: false)))
        let ended = await sipp.wait(timeout: .seconds(30))
        let hangup = try? await bob.expectHangup(timeout: .seconds(5))
        let sizes = heard.frames.withLock { $0.map { "\(Int($0.0.components.seconds)):\($0.1)" } }
        print("SIP hold with sipp: tone at the first address \(flowing), hold music at bob \(holdMusic) (by \(heldAt)), "
              + "moved \(moved), packets to the first address while held \(sentToFirstWhileHeld), server re-INVITE \(sawHoldReinvite); "
              + "bob heard \(sizes.count) frames, e.g. \(sizes.prefix(3))…\(sizes.suffix(3))")
        await bob.close()
        await server.shutdown()
        #expect(flowing)
        #expect(holdMusic, "bob's frames: \(sizes.prefix(400))")
        #expect(moved)
        #expect(sentToFirstWhileHeld == 0)
        #expect(sawHoldReinvite)
        #expect(ended && sipp.process.terminationStatus == 0, "\(Self.log(sipp, dir: dir))")
        #expect(hangup != nil)
    }

    /// INVITE, ACK and BYE with RTP both ways, and an offerless re-INVITE: sipp echoes the RTP it gets (`-rtp_echo`), so bob
    /// hears his own 600 Hz tone back through the phone's leg (Opus → PCMU → sipp → PCMU → Opus).
    @Test(.timeLimit(.minutes(2))) func aCallWithRTPEchoedByTheSippPhone() async throws {
        let (server, dir, bob, user, sipPort) = try await Self.setUp("siprtp")
        defer { try? FileManager.default.removeItem(at: dir) }
        typealias S = SIPDialogScenarios
        // Midway, a re-INVITE without an offer: our offer comes in the 200, sipp's answer in the ACK
        // (RFC 3261 §14.2), and the media goes on.
        let body = S.invite(sdpPort: "[media_port]", answered: S.answeredAndAcknowledged())
            + "<pause milliseconds=\"1500\"/>" + S.inDialog("INVITE", cseq: 3) + S.expect200("m=audio [0-9]+ RTP/AVP", variable: "offer")
            + S.ack(cseq: 3, answer: S.sdp(port: "[media_port]", direction: "sendrecv", version: 2))
            + "<pause milliseconds=\"3500\"/>" + S.inDialog("BYE", cseq: 4) + "<recv response=\"200\"/>"
        let sipp = try Self.startSipp(S.scenario("rtp", body, variables: ["offer"]), port: sipPort, user: user, password: "s3cret-pw",
                                      service: "bob", dir: dir, extra: ["-rtp_echo"])
        defer { sipp.kill() }
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        let heard = HeardPayloads()
        let peer = bob.peer
        let listener = Task { for await packet in peer.audio where packet.payload.count > 2 { heard.append(packet.payload) } }
        try await ToneAudio.send(bob.peer, frequency: 600, seconds: 3)
        listener.cancel()
        let frames = heard.all
        let echoed = try ToneAudio.dominantFrequency(ofOpus: Array(frames.dropFirst(50)), analysisSeconds: 1.5)
        let ended = await sipp.wait(timeout: .seconds(15))
        let hangup = try? await bob.expectHangup(timeout: .seconds(5))
        print("SIP call with sipp's RTP echo: bob heard \(frames.count) frames, dominant \(echoed) Hz; sipp's BYE ended bob's call \(hangup != nil)")
        await bob.close()
        await server.shutdown()
        #expect(abs(echoed - 600) < 20)
        #expect(ended && sipp.process.terminationStatus == 0, "\(Self.log(sipp, dir: dir))")
        #expect(hangup != nil)
    }

    /// Keys in INFO reach the call's `<Gather>` as RFC 4733 keys do: `application/dtmf-relay`
    /// (`Signal=5`) and `application/dtmf` (`*`); another body type is refused 415.
    @Test(.timeLimit(.minutes(2))) func infoKeysReachTheCallsGather() async throws {
        let app = try TwiMLTestApp(authToken: "")
        defer { Task { await app.shutdown() } }
        let (server, dir, bob, user, sipPort) = try await Self.setUp("sipinfo", voiceURL: app.baseURL + "/voice")
        defer { try? FileManager.default.removeItem(at: dir) }
        app.set("/voice", "<Response><Gather numDigits=\"2\" action=\"/digits\" timeout=\"15\"/></Response>")
        app.set("/digits", "<Response><Hangup/></Response>")
        let probe = try UDPProbe()
        typealias S = SIPDialogScenarios
        let body = S.invite(sdpPort: probe.port, answered: S.answeredAndAcknowledged())
            + "<pause milliseconds=\"500\"/>"
            + S.inDialog("INFO", cseq: 3, body: "<x/>", contentType: "application/media_control+xml") + "<recv response=\"415\"/>"
            + S.inDialog("INFO", cseq: 4, body: "Signal=5\nDuration=160", contentType: "application/dtmf-relay") + "<recv response=\"200\"/>"
            + S.inDialog("INFO", cseq: 5, body: "*", contentType: "application/dtmf") + "<recv response=\"200\"/>"
            + S.answerBye
        let sipp = try Self.startSipp(S.scenario("info", body, variables: []), port: sipPort, user: user, password: "s3cret-pw",
                                      service: "bob", dir: dir)
        defer { sipp.kill() }
        let ended = await sipp.wait(timeout: .seconds(30))
        let digits = app.requests("/digits").first?.parameters["Digits"]
        print("SIP INFO with sipp: the <Gather> got \(digits ?? "nothing"); sipp exit \(sipp.isRunning ? -1 : Int(sipp.process.terminationStatus))")
        await bob.close()
        await server.shutdown()
        #expect(digits == "5*")
        #expect(ended && sipp.process.terminationStatus == 0, "\(Self.log(sipp, dir: dir))")
    }

    /// CANCEL before the answer: 200 for the CANCEL, 487 for the INVITE, which is sent again
    /// (Timer G: 0.5 s, then 1 s later) while sipp holds back its ACK, and not after the ACK.
    @Test(.timeLimit(.minutes(2))) func cancelBeforeTheAnswerAndThe487IsSentAgainUntilItsACK() async throws {
        let (server, dir, bob, user, sipPort) = try await Self.setUp("sipcancel")
        defer { try? FileManager.default.removeItem(at: dir) }
        let probe = try UDPProbe()
        typealias S = SIPDialogScenarios
        let body = S.invite(sdpPort: probe.port, answered: """
              <recv response="180"/>
              <send><![CDATA[
                CANCEL sip:[service]@[remote_ip]:[remote_port] SIP/2.0
                [last_Via:]
                From: \(S.from)
                To: \(S.to)
                Call-ID: [call_id]
                CSeq: 2 CANCEL
                Max-Forwards: 70
                Content-Length: 0

              ]]></send>
              <recv response="200"/>
              <recv response="487"/>
              <pause milliseconds="1700"/>
              <send><![CDATA[
                ACK sip:[service]@[remote_ip]:[remote_port] SIP/2.0
                [last_Via:]
                From: \(S.from)
                [last_To:]
                Call-ID: [call_id]
                CSeq: 2 ACK
                Max-Forwards: 70
                Content-Length: 0

              ]]></send>
              <pause milliseconds="2500"/>
            """)
        let sipp = try Self.startSipp(S.scenario("cancel", body, variables: []), port: sipPort, user: user, password: "s3cret-pw",
                                      service: "bob", dir: dir)
        defer { sipp.kill() }
        let incoming: Incoming
        do { incoming = try await bob.expectIncoming() } catch {
            Issue.record("no call reached bob: \(Self.log(sipp, dir: dir))")
            throw error
        }
        let ended = await sipp.wait(timeout: .seconds(30))
        let log = Self.messages(dir)
        let received487 = log.components(separatedBy: "SIP/2.0 487").count - 1
        let afterACK = log.components(separatedBy: "CSeq: 2 ACK").last ?? ""
        print("SIP CANCEL with sipp: \(received487) × 487 before sipp's ACK, \(afterACK.components(separatedBy: "SIP/2.0 487").count - 1) after; "
              + "bob's call \(incoming.callSid); sipp exit \(sipp.isRunning ? -1 : Int(sipp.process.terminationStatus))")
        await bob.close()
        await server.shutdown()
        #expect(ended && sipp.process.terminationStatus == 0, "\(Self.log(sipp, dir: dir))")
        #expect((2...3).contains(received487), "\(log.suffix(4000))")
        #expect(!afterACK.contains("SIP/2.0 487"))
    }

    /// RFC 4028 both ways, two calls at once: one phone asks the server to refresh
    /// (`Session-Expires: 90;refresher=uas`) and gets a re-INVITE with `Session-Expires` at half
    /// the interval (45 s); the other is the refresher and never refreshes, so the server sends
    /// BYE at the interval less a third (60 s, §10).
    @Test(.timeLimit(.minutes(3))) func sessionTimersAreRefreshedByUsAndEndCallsThePhoneDidNotRefresh() async throws {
        let app = try TwiMLTestApp(authToken: "")
        defer { Task { await app.shutdown() } }
        let (server, dir, bob, user, sipPort) = try await Self.setUp("siptimer", voiceURL: app.baseURL + "/voice")
        defer { try? FileManager.default.removeItem(at: dir) }
        app.set("/voice", "<Response><Gather numDigits=\"1\" timeout=\"100\" action=\"/gathered\"/></Response>")
        let probes = (try UDPProbe(), try UDPProbe())
        typealias S = SIPDialogScenarios
        let refreshed = S.invite(sdpPort: probes.0.port, headers: "Supported: timer\nSession-Expires: 90;refresher=uas",
                                 answered: S.answeredAndAcknowledged(checks: """
                                     <ereg regexp="90;refresher=uas" search_in="hdr" header="Session-Expires:" check_it="true" assign_to="se"/>
                                     """))
            + S.answerServerReinvite("90;refresher=uac", variable: "refresh", header: "Session-Expires:", sdpPort: probes.0.port,
                                     direction: "sendrecv", version: 2, headers: "Session-Expires: 90;refresher=uac\nRequire: timer",
                                     timeout: 60000)
            + S.inDialog("BYE", cseq: 3) + "<recv response=\"200\"/>"
        let expired = S.invite(sdpPort: probes.1.port, headers: "Supported: timer\nSession-Expires: 90;refresher=uac",
                               answered: S.answeredAndAcknowledged(checks: """
                                   <ereg regexp="90;refresher=uac" search_in="hdr" header="Session-Expires:" check_it="true" assign_to="se"/>
                                   """))
            + S.answerBye.replacingOccurrences(of: "timeout=\"20000\"", with: "timeout=\"70000\"")
        let dirs = (dir.appendingPathComponent("refreshed"), dir.appendingPathComponent("expired"))
        for d in [dirs.0, dirs.1] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
        let start = ContinuousClock.now
        let first = try Self.startSipp(S.scenario("refresh", refreshed, variables: ["se", "refresh"]), port: sipPort, user: user,
                                       password: "s3cret-pw", service: "bob", dir: dirs.0, timeout: 100)
        defer { first.kill() }
        let second = try Self.startSipp(S.scenario("expire", expired, variables: ["se"]), port: sipPort, user: user,
                                        password: "s3cret-pw", service: "bob", dir: dirs.1, timeout: 100)
        defer { second.kill() }
        let firstEnded = await first.wait(timeout: .seconds(80))
        let firstAt = ContinuousClock.now - start
        let secondEnded = await second.wait(timeout: .seconds(40))
        let secondAt = ContinuousClock.now - start
        print("SIP session timers with sipp: our refresh re-INVITE answered, call ended by \(firstAt); "
              + "the phone that did not refresh got BYE, its sipp ended at \(secondAt)")
        await bob.close()
        await server.shutdown()
        #expect(firstEnded && first.process.terminationStatus == 0, "\(Self.log(first, dir: dirs.0))")
        #expect(secondEnded && second.process.terminationStatus == 0, "\(Self.log(second, dir: dirs.1))")
        // §10: 90 − min(32, 30) = 60 s after the answer, not before.
        #expect(secondAt > .seconds(59) && secondAt < .seconds(70))
    }
}

/// What a WebRTC party heard: when, and how big each audio payload was.
final class HeardFrames: Sendable {
    let frames = Mutex<[(Duration, Int)]>([])
}

/// A UDP socket on loopback that counts what it receives (the phone's RTP address in an SDP).
final class UDPProbe: @unchecked Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                Glibc.bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            close(descriptor)
            throw ClientInterop.Failure(description: "cannot bind a UDP probe")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    private var total = 0

    /// Datagrams received so far (reads what is waiting).
    @discardableResult
    func count() -> Int {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 { total += 1 }
        return total
    }

    /// Forgets what was counted.
    func reset() {
        count()
        total = 0
    }
}
