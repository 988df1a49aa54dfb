import AudioDevices
import CallHarness
import Foundation
import NetworkConditioner
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import ParleyVoice
import WebRTC

/// The speech alice plays: `leadSeconds` of silence (so the call is set up on both legs before
/// the first word), the speech, then a second of silence for the tail to arrive.
struct CallQualitySpeech: Sendable {
    /// The speech alone, 16 kHz mono: what bob's recording is scored against.
    let reference: [Int16]
    /// Alice's microphone, a 48 kHz mono WAV.
    let microphonePath: String
    let leadSeconds: Double
}

/// What one call of `parley-bench call-quality` measured.
struct CallQualityResult: Sendable {
    let condition: CallQualityCondition
    let seed: UInt64
    /// Bob's recording (16 kHz), cut to start shortly before the speech.
    let recording: [Int16]
    let recordingPath: String
    /// Bob's received-audio figures at the end of the speech, as `Call.stats()` gives them.
    let heard: StatsReport.RemoteAudioTrackStats
    /// What alice sent while bob was connected: payload bytes and packets per second.
    let aliceBytesPerSecond: Double
    let alicePacketsPerSecond: Double
    let relay: NetworkRelay.Statistics
}

/// Process-wide `Voice` settings, touched by one call at a time: each call has an edge of its own.
actor CallQualityEdges {
    func register(_ edge: String, baseURL: String) { Voice.servers[edge] = baseURL }
    func remove(_ edge: String) { Voice.servers[edge] = nil }

    /// `Voice.listen` on `edge` (it reads `Voice.edge` before its first suspension).
    func listen(edge: String, token: String, delegate: any NotificationDelegate, queue: DispatchQueue) async throws -> Listener {
        Voice.edge = edge
        return try await Voice.listen(accessToken: token, delegate: delegate, delegateQueue: queue)
    }
}

/// One real call: an in-process `PlatformServer` whose media socket is bound to 127.0.0.2 and
/// advertised as 127.0.0.1, a `NetworkRelay` on 127.0.0.1 in front of it with the condition, and
/// two SDK calls, alice (playing the speech) → bob (recording it). Every media packet of both legs
/// crosses the relay; signaling does not.
struct CallQualityCall {
    let condition: CallQualityCondition
    let seed: UInt64
    let speech: CallQualitySpeech
    let directory: String
    let edges: CallQualityEdges

    var tag: String { "\(condition.name)-seed\(seed)" }

    func run() async throws -> CallQualityResult {
        let (server, relay) = try await startServerAndRelay()
        let edge = "call-quality-\(tag)"
        await edges.register(edge, baseURL: "http://127.0.0.1:\(server.port)")
        let alice = CallQualityParty(name: "alice \(tag)"), bob = CallQualityParty(name: "bob \(tag)")
        var listener: Listener?
        var aliceCall: Call?
        func cleanUp() async {
            aliceCall?.disconnect()
            bob.call?.disconnect()
            try? await alice.waitForEnd(timeout: .seconds(10))
            try? await bob.waitForEnd(timeout: .seconds(10))
            await listener?.stop()
            await edges.remove(edge)
            relay.stop()
            await server.shutdown()
        }
        do {
            let recordingPath = directory + "/bob-heard-\(tag).wav"
            let inbox = InviteHandler { invite in
                let options = AcceptOptions(callInvite: invite) {
                    $0.audioDevice = try? SpeechDevices.recorder(to: recordingPath)
                    $0.delegateQueue = bob.queue
                    $0.edge = edge
                }
                bob.call = invite.accept(options: options, delegate: bob)
            }
            listener = try await edges.listen(edge: edge, token: try VoiceTokens.mint(server, identity: "bob"), delegate: inbox,
                                              queue: bob.queue)
            let microphone = try FileAudioDevice(inputPath: speech.microphonePath, outputPath: nil)
            let started = ContinuousClock.now
            let options = ConnectOptions(accessToken: try VoiceTokens.mint(server, identity: "alice")) {
                $0.params = ["To": "bob"]
                $0.audioDevice = microphone
                $0.delegateQueue = alice.queue
                $0.edge = edge
            }
            let call = Voice.connect(options: options, delegate: alice)
            aliceCall = call
            try await alice.waitForConnect(timeout: .seconds(30))
            try await bob.waitForConnect(timeout: .seconds(10))
            let setup = (bob.connectedAt ?? .now) - started
            guard setup < .milliseconds(Int64((speech.leadSeconds - 0.5) * 1000)) else {
                throw BenchFailure("\(tag): the call took \(setup) to connect both legs, more than the "
                                   + "\(speech.leadSeconds) s of silence before the speech allow")
            }
            let before = await call.stats().localAudioTrackStats.first
            let from = ContinuousClock.now
            let deadline = from + .seconds(Int64(Double(speech.reference.count) / 16_000 + speech.leadSeconds) + 30)
            while !microphone.hasReachedEndOfInput {
                try alice.checkUp()
                try bob.checkUp()
                guard ContinuousClock.now < deadline else { throw BenchFailure("\(tag): alice's speech did not play out in time") }
                try await Task.sleep(for: .milliseconds(50))
            }
            let after = await call.stats().localAudioTrackStats.first
            let seconds = (ContinuousClock.now - from).seconds
            guard let heard = await bob.call?.stats().remoteAudioTrackStats.first else {
                throw BenchFailure("\(tag): bob's call has no received-audio figures")
            }
            let relayStatistics = await relay.statistics()
            await cleanUp()
            let recorded = try SpeechMaterial.load(recordingPath, rate: 16_000)
            return CallQualityResult(
                condition: condition, seed: seed, recording: SpeechOnset.cut(recorded, toMatch: speech.reference),
                recordingPath: recordingPath, heard: heard,
                aliceBytesPerSecond: Double((after?.bytesSent ?? 0) - (before?.bytesSent ?? 0)) / seconds,
                alicePacketsPerSecond: Double((after?.packetsSent ?? 0) - (before?.packetsSent ?? 0)) / seconds,
                relay: relayStatistics)
        } catch {
            await cleanUp()
            throw error
        }
    }

    /// A server with its media on 127.0.0.2:P (advertised 127.0.0.1:P) and the relay on
    /// 127.0.0.1:P forwarding to it, configured through the same flags `parley-server` takes. P is
    /// ephemeral; if 127.0.0.1:P is taken, it tries another.
    private func startServerAndRelay() async throws -> (PlatformServer, NetworkRelay) {
        var lastError: (any Error)?
        for attempt in 1...5 {
            var configuration = try ServerConfiguration.parse([
                "--http", "127.0.0.1:0", "--media", "127.0.0.2:0", "--media-advertise", "127.0.0.1",
                "--recordings", directory + "/recordings-\(tag)-\(attempt)",
            ])
            configuration.logLevel = .error
            let server = try PlatformServer(configuration: configuration, store: InMemoryAccountStore())
            try server.start()
            let port = server.media.localPort
            do {
                let relay = try NetworkRelay(listenHost: "127.0.0.1", listenPort: port,
                                             forwardTo: try SocketAddress.resolve(host: "127.0.0.2", port: port),
                                             upstream: condition.perHop, seed: seed)
                return (server, relay)
            } catch {
                lastError = error
                await server.shutdown()
            }
        }
        throw BenchFailure("\(tag): no relay port in front of the server's media: \(lastError.map { "\($0)" } ?? "")")
    }
}
