import Foundation
import Glibc
import HTTPWire
import ICE
import NetworkConditioner
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing
import WebRTC

/// What operator mistakes look like once calls run: a recordings directory that vanished after
/// start, and a media socket bound to a wildcard address; and media behind a relay.
@Suite(.serialized) struct OperatorMistakeCallTests {
    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    static func waitUntil(_ timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try condition()
    }

    /// `<Record>` whose directory vanished (an unmounted volume, a cleanup job) or cannot hold files
    /// any more (here a file took its place: permissions do not stop root, which tests may run as):
    /// the action hears `RecordingStatus=failed` and `ErrorCode=31500`, the call's record and its
    /// final status callback carry 31500, and the Recording resource is `failed` with `error_code` 31500.
    @Test(arguments: [false, true]) func recordingThatCannotBeWrittenIsAnErrorOnTheCall(replacedByAFile: Bool) async throws {
        let h = try await VoiceHarness.start()
        let directory = h.server.configuration.recordingsDirectory
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try h.makeApplication()
        h.app.set("/voice", ##"<Response><Record maxLength="10" timeout="5" playBeep="false" action="/recorded"/></Response>"##)
        h.app.set("/recorded", "<Response><Hangup/></Response>")
        // Made at start; changed behind the server's back.
        try FileManager.default.removeItem(atPath: directory)
        if replacedByAFile { #expect(FileManager.default.createFile(atPath: directory, contents: Data("x".utf8))) }

        let alice = try TestParty(try await h.client("alice", application: app.sid))
        let callSid = try await alice.invite(to: "voicemail")
        // The recording fails as soon as the server's side of the media is up, and the application
        // hangs up: the client's side may not have finished connecting by then.
        try? await alice.connectMedia()
        let hangup = try await alice.expectHangup(timeout: .seconds(20))
        #expect(hangup.code == nil)  // the application's <Hangup/> ended the call

        let recorded = try #require(h.app.requests("/recorded").first)
        #expect(recorded.parameters["RecordingStatus"] == "failed")
        #expect(recorded.parameters["ErrorCode"] == "31500")
        #expect(recorded.parameters["RecordingDuration"] == "0")
        #expect(recorded.parameters["RecordingUrl"] == nil)
        let recordingSid = try #require(recorded.parameters["RecordingSid"])

        #expect(try await Self.waitUntil { try h.store.call(sid: callSid)?.status.isFinal == true })
        let call = try #require(try h.store.call(sid: callSid))
        #expect(call.status == .completed)
        #expect(call.errorCode == 31500)
        #expect(call.errorMessage == "recording \(recordingSid) could not be written on the server")
        #expect(await Self.waitUntil { h.app.requests("/status").contains { $0.parameters["CallStatus"] == "completed" } })
        let completed = try #require(h.app.requests("/status").first { $0.parameters["CallStatus"] == "completed" })
        #expect(completed.parameters["ErrorCode"] == "31500")

        let key = h.credentials.apiKey
        let path = "/2010-04-01/Accounts/\(h.credentials.account.sid)/Recordings/\(recordingSid).json"
        let response = try await HTTPClient().send(
            HTTPRequest(method: "GET", target: path, headers: RESTFixture.basic(key.sid, key.secret)), to: h.baseURL + path)
        #expect(response.status == 200)
        let resource = response.jsonObject
        #expect(resource.string("status") == "failed")
        #expect(resource.int("error_code") == 31500)
        #expect(resource.string("call_sid") == callSid)
        let media = try await HTTPClient().send(
            HTTPRequest(method: "GET", target: String(path.dropLast(5)) + ".wav", headers: RESTFixture.basic(key.sid, key.secret)),
            to: h.baseURL + String(path.dropLast(5)) + ".wav")
        #expect(media.status == 404)
        await alice.close()
        await h.stop()
    }

    /// `<Dial record>` without a directory: the parties still talk, unrecorded, and the call's
    /// record and a `failed` Recording say why.
    @Test func dialRecordingThatCannotBeWrittenLeavesTheCallUp() async throws {
        let h = try await VoiceHarness.start()
        h.app.set("/voice", #"<Response><Dial record="record-from-answer-dual" action="/after"><Client>bob</Client></Dial></Response>"#)
        h.app.set("/after", "<Response><Hangup/></Response>")
        try FileManager.default.removeItem(atPath: h.server.configuration.recordingsDirectory)
        let (alice, bob, callSid, bobSid) = try await h.aliceDialsBob()
        #expect(try await Self.waitUntil { try h.store.call(sid: callSid)?.errorCode == 31500 })
        try await bob.signaling.send(.hangup(Hangup(callSid: bobSid)))
        _ = try await alice.expectHangup(timeout: .seconds(20))

        let after = try #require(h.app.requests("/after").first)
        #expect(after.parameters["DialCallStatus"] == "completed")
        #expect(after.parameters["RecordingUrl"] == nil)
        let recordings = try h.store.recordings(accountSid: h.credentials.account.sid, callSid: callSid)
        #expect(recordings.map(\.status) == ["failed"])
        #expect(recordings.first?.channels == 2 && recordings.first?.source == "DialVerb")
        await alice.close()
        await bob.close()
        await h.stop()
    }

    /// The host's IPv4 interface addresses, read here with getifaddrs(3) independently of ParleyNet.
    static func hostIPv4Addresses() -> Set<String> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: Set<String> = []
        var entry = list
        while let current = entry {
            entry = current.pointee.ifa_next
            guard current.pointee.ifa_flags & 1 != 0, let address = current.pointee.ifa_addr,
                  Int32(address.pointee.sa_family) == AF_INET else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0,
                              NI_NUMERICHOST) == 0 else { continue }
            found.insert(String(cString: host))
        }
        return found
    }

    /// The `a=candidate` addresses of an SDP.
    static func candidateAddresses(_ sdp: String) -> [String] {
        sdp.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("a=candidate:") }.map { line in
            String(line.split(separator: " ")[4])
        }
    }

    /// Sends half a second of tone on a connected echo session and expects some of it back.
    static func expectEcho(_ pc: PeerConnection) async throws {
        try await ToneAudio.send(pc, frequency: 440, seconds: 0.5)
        let deadline = ContinuousClock.now + .seconds(5)
        while await pc.statistics().packetsReceived == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(await pc.statistics().packetsReceived > 0, "no echo")
    }

    /// `POST /v1/echo` with `offer`.
    static func echoAnswer(_ server: RunningServer, offer: String) async throws -> HTTPResponse {
        try await server.client.send(
            HTTPRequest(method: "POST", target: "/v1/echo",
                        headers: ["Authorization": "Bearer \(try server.token())", "Content-Type": "application/sdp"],
                        body: Array(offer.utf8)), to: server.base + "/v1/echo")
    }

    /// `--media 0.0.0.0:0`: one host candidate per up IPv4 interface address (loopback last),
    /// and a client on 127.0.0.1 still connects and hears its echo.
    @Test func wildcardMediaAdvertisesEveryInterfaceAddress() async throws {
        let server = try RunningServer.start { $0.mediaHost = "0.0.0.0" }
        let expected = Self.hostIPv4Addresses()
        #expect(expected.contains("127.0.0.1"))
        #expect(Set(server.server.media.candidates.map(\.ipString)) == expected)
        #expect(server.server.media.candidates.last?.ipString == "127.0.0.1" || expected == ["127.0.0.1"])

        let pc = try PeerConnection()
        let response = try await Self.echoAnswer(server, offer: try await pc.createOffer())
        #expect(response.status == 201, "\(response.bodyText)")
        let answer = response.bodyText
        let advertised = Self.candidateAddresses(answer)
        #expect(Set(advertised) == expected)
        #expect(advertised.count == expected.count)
        try await pc.setRemoteAnswer(answer)
        let connected = await pc.waitUntilConnected(timeout: .seconds(10))
        let stats = await pc.statistics()
        #expect(connected, "not connected: \(stats.state) ICE \(stats.iceState)")
        #expect(stats.localCandidate?.address.ipString == "127.0.0.1")
        if connected { try await Self.expectEcho(pc) }
        await pc.close()
        await server.stop()
    }

    /// `--media-advertise` replaces what answers give, whatever the socket is bound to.
    @Test func advertisedAddressesReplaceTheBoundOnes() async throws {
        let server = try RunningServer.start {
            $0.mediaHost = "0.0.0.0"
            $0.mediaAdvertisedHosts = ["203.0.113.7", "198.51.100.9"]
        }
        #expect(server.server.media.candidates.map(\.ipString) == ["203.0.113.7", "198.51.100.9"])
        let pc = try PeerConnection()
        let response = try await Self.echoAnswer(server, offer: try await pc.createOffer())
        #expect(response.status == 201)
        #expect(Self.candidateAddresses(response.bodyText) == ["203.0.113.7", "198.51.100.9"])
        #expect(response.bodyText.contains("c=IN IP4 203.0.113.7"))
        await pc.close()
        await server.stop()
    }

    /// `--media 127.0.0.2:P --media-advertise 127.0.0.1` with a relay on 127.0.0.1:P forwarding to
    /// it (`parley netsim` in front of `parley-server`, so every leg's media crosses it): answers
    /// give 127.0.0.1, and the echo goes through the relay both ways.
    @Test func mediaBehindARelayOnAnotherLoopbackAddress() async throws {
        let flags = try ServerConfiguration.parse(["--media", "127.0.0.2:0", "--media-advertise", "127.0.0.1"])
        #expect(flags.mediaHost == "127.0.0.2" && flags.mediaAdvertisedHosts == ["127.0.0.1"])
        let server = try RunningServer.start {
            $0.mediaHost = flags.mediaHost
            $0.mediaAdvertisedHosts = flags.mediaAdvertisedHosts
        }
        let port = server.server.media.localPort
        let relay = try NetworkRelay(listenHost: "127.0.0.1", listenPort: port,
                                     forwardTo: try SocketAddress.resolve(host: "127.0.0.2", port: port))
        defer { relay.stop() }
        let pc = try PeerConnection()
        let response = try await Self.echoAnswer(server, offer: try await pc.createOffer())
        #expect(response.status == 201, "\(response.bodyText)")
        #expect(Self.candidateAddresses(response.bodyText) == ["127.0.0.1"])
        try await pc.setRemoteAnswer(response.bodyText)
        let connected = await pc.waitUntilConnected(timeout: .seconds(10))
        #expect(connected, "not connected through the relay")
        if connected { try await Self.expectEcho(pc) }
        let relayed = await relay.statistics()
        #expect(relayed.clientsSeen >= 1 && relayed.upstream.delivered > 0 && relayed.downstream.delivered > 0, "\(relayed)")
        await pc.close()
        await server.stop()
    }
}
