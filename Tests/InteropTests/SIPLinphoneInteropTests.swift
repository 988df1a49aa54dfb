import AccessToken
import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// linphonec 5.1 (Debian's linphone-cli), a second real softphone, over TCP only: it registers
/// as a Plivo-style endpoint (digest over TCP), calls the WebRTC client bob through the server
/// (the INVITE, its 407 and every response on the same connection, nothing sent again over TCP),
/// bob answers and hears it, and bob's hang-up reaches linphonec as a BYE on that connection.
@Suite(.serialized, .tags(.interop)) struct SIPLinphoneInteropTests {
    static let linphonec = "/usr/bin/linphonec"

    /// linphonec's configuration: TCP on a random port, UDP and TLS off, one account at the server.
    static func configuration(user: String, password: String, sipPort: Int) -> String {
        """
        [sip]
        sip_port=0
        sip_tcp_port=-1
        sip_tls_port=0
        default_proxy=0
        register_only_when_network_is_up=0
        ipv6=0
        [rtp]
        audio_rtp_port=40000-49999
        [sound]
        echocancellation=0
        [proxy_0]
        reg_proxy=<sip:127.0.0.1:\(sipPort);transport=tcp>
        reg_identity=<sip:\(user)@127.0.0.1>
        reg_expires=600
        reg_sendregister=1
        publish=0
        [auth_info_0]
        username=\(user)
        userid=\(user)
        passwd=\(password)
        realm=parley
        """
    }

    @Test(.timeLimit(.minutes(2))) func linphonecRegistersOverTCPAndCallsAWebRTCClient() async throws {
        let (server, dir, bob, user, sipPort) = try await SIPDialogInteropTests.setUp("siplinphone")
        defer { try? FileManager.default.removeItem(at: dir) }
        let account = server.defaultCredentials.account.sid

        // linphonec wants its data directory, and reads commands from stdin (a pipe the test holds open).
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".local/share/linphone"), withIntermediateDirectories: true)
        let rc = dir.appendingPathComponent("linphonerc")
        try Self.configuration(user: user, password: "s3cret-pw", sipPort: sipPort)
            .write(to: rc, atomically: true, encoding: .utf8)
        let commands = Pipe()
        let phone = try ChildProcess(executable: "/usr/bin/env", arguments: ["HOME=\(home.path)", Self.linphonec, "-c", rc.path, "-d", "0"],
                                     input: commands.fileHandleForReading)
        defer {
            try? commands.fileHandleForWriting.close()
            phone.kill()
        }
        func send(_ command: String) { commands.fileHandleForWriting.write(Data((command + "\n").utf8)) }
        send("soundcard use files")

        var registered = false
        for _ in 0..<200 where !registered {
            let bindings = (try? server.store.sipBindings(accountSid: account, aor: "sip:\(user)@127.0.0.1")) ?? []
            registered = bindings.contains { $0.contact.contains("transport=tcp") }
            if !registered { try await Task.sleep(for: .milliseconds(50)) }
        }
        let bindings = (try? server.store.sipBindings(accountSid: account, aor: "sip:\(user)@127.0.0.1")) ?? []
        #expect(registered, "bindings \(bindings.map(\.contact)); \(phone.stdout.suffix(2000)) \(phone.stderr.suffix(2000))")

        send("call sip:bob@127.0.0.1:\(sipPort);transport=tcp")
        let incoming = try await bob.expectIncoming()
        #expect(incoming.from.hasPrefix("sip:\(user)@"))
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        let connected = await phone.waitForOutput("onnected", timeout: .seconds(10))
        // linphonec plays a 1 kHz tone into the call and records what it hears (bob's 600 Hz).
        let tone = dir.appendingPathComponent("tone.wav"), recording = dir.appendingPathComponent("heard.wav")
        try Data(SIPCallInteropTests.toneWAV(1_000, seconds: 10)).write(to: tone)
        send("play \(tone.path)")
        send("record \(recording.path)")

        let frames = Mutex<[[UInt8]]>([])
        let peer = bob.peer
        let listener = Task { for await packet in peer.audio where packet.payload.count > 2 { frames.withLock { $0.append(packet.payload) } } }
        try await ToneAudio.send(bob.peer, frequency: 600, seconds: 4)
        listener.cancel()
        try await bob.signaling.send(.hangup(Hangup(callSid: incoming.callSid)))
        let ended = await phone.waitForOutput("ended", timeout: .seconds(10))
        let heard = frames.withLock { $0 }
        let atBob = try ToneAudio.dominantFrequency(ofOpus: Array(heard.dropFirst(50)), analysisSeconds: 1.5)
        let atPhone = SIPCallInteropTests.dominantFrequency(ofWAV: recording)
        print("linphonec over TCP: registered \(registered) (\(bindings.map(\.contact))), call connected \(connected), "
              + "bob heard \(heard.count) frames at \(atBob) Hz, linphonec heard \(atPhone) Hz, BYE reached linphonec \(ended)")
        send("quit")
        await bob.close()
        await server.shutdown()
        #expect(connected, "\(phone.stdout.suffix(3000))")
        #expect(abs(atBob - 1_000) < 20, "linphonec's tone at bob: \(atBob) Hz\n\(phone.stdout.suffix(2000))")
        #expect(abs(atPhone - 600) < 20, "bob's tone at linphonec: \(atPhone) Hz")
        #expect(ended, "\(phone.stdout.suffix(3000))")
    }
}
