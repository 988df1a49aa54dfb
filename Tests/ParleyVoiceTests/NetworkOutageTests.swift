import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing
@testable import ParleyVoice
import WebRTC

/// Outages (issue 15) on the real call path: alice calls bob through an in-process server whose
/// media is reached only through a `parley netsim` process (server media on 127.0.0.2:P, the relay
/// on 127.0.0.1:P, the address answers advertise), so both legs' media cross the relay, which
/// blacks the network out both ways for the scheduled time (`--outage-at 4 --outage-for D`).
///
/// A 5 s blackout is shorter than ICE's 8 s silence limit: media carries on on the same pair
/// as soon as it can, and bob's jitter buffer plays at its usual delay again. A 25 s one outlasts
/// that and ICE consent (30 s without a check, RFC 7675, which expires 24–30 s in): both calls
/// say `isReconnectingWithError` 53405, restart ICE every 5 s, and reconnect once the relay lets
/// the checks through; the call goes on. Each test prints its figures (`outage:` lines).
extension VoiceSDKTests {
    @Suite(.tags(.realTime, .process)) struct NetworkOutageTests {
        @Test func fiveSecondBlackoutResumesAudioWithinTwoSeconds() async throws {
            let run = try await RelayedCall.start(outageSeconds: 5)
            defer { run.stop() }
            let figures = try await run.measure(resumeTimeout: .seconds(10))
            #expect(figures.resumed < .seconds(2), "bob's audio came back \(figures.resumed) after the network")
            #expect(figures.packetsInTheSecondAfter >= 40, "\(figures)")
            // Back down to its usual delay: within a frame of what it was before the outage.
            #expect(figures.delayAfterMs <= figures.delayBeforeMs + 20, "\(figures)")
            #expect(run.aliceEvents.events.allSatisfy { !$0.isDisconnection } && run.alice.state == .connected,
                    "\(run.aliceEvents.events)")
            #expect(run.bobEvents.events.allSatisfy { !$0.isDisconnection } && run.bob.state == .connected,
                    "\(run.bobEvents.events)")
        }

        @Test func twentyFiveSecondBlackoutEndsInCallDidReconnect() async throws {
            let run = try await RelayedCall.start(outageSeconds: 25)
            defer { run.stop() }
            let figures = try await run.measure(resumeTimeout: .seconds(12))
            for (name, events, call) in [("alice", run.aliceEvents, run.alice), ("bob", run.bobEvents, run.bob)] {
                try await events.wait(for: "\(name) reconnected", timeout: .seconds(5)) { $0.contains(.reconnected) }
                if let reconnected = events.lastTime(of: .reconnected) {
                    print("outage: \(name)'s callDidReconnect \(reconnected - figures.returned) after the network")
                }
                let seen = events.events
                let lost = try #require(seen.firstIndex(of: .reconnecting(53405)), "\(name): \(seen)")
                #expect(lost < seen.lastIndex(of: .reconnected)!, "\(name): \(seen)")
                #expect(seen.allSatisfy { !$0.isDisconnection } && call.state == .connected, "\(name): \(seen)")
            }
            #expect(figures.packetsInTheSecondAfter >= 40, "\(figures)")
            #expect(figures.delayAfterMs <= figures.delayBeforeMs + 20, "\(figures)")
        }
    }
}

extension CallEvents.Event {
    var isDisconnection: Bool {
        switch self {
        case .disconnected, .failedToConnect: true
        default: false
        }
    }
}

/// A connected alice → bob call whose media crosses a `parley netsim` process with one scheduled
/// blackout; ended by `stop()`.
struct RelayedCall {
    /// What bob saw around the blackout.
    struct Figures: CustomStringConvertible {
        /// When the test read the relay's "outage ends" line (within 10 ms of it).
        var returned: ContinuousClock.Instant
        /// From then to bob's next received packet.
        var resumed: Duration
        /// Bob's gap in received packets, less the blackout: the same, measured without the relay's line.
        var gapBeyondOutage: Duration
        /// Bob's jitter-buffer delay, mean over the second before the blackout and the third
        /// second after the audio resumed.
        var delayBeforeMs: Double
        var delayAfterMs: Double
        var packetsInTheSecondAfter: Int

        var description: String {
            String(format: "resumed %.0f ms after the network (packet gap %.0f ms beyond the outage), "
                   + "jitter-buffer delay %.1f ms before, %.1f ms after, %d packets in the second after",
                   resumed.milliseconds, gapBeyondOutage.milliseconds, delayBeforeMs, delayAfterMs, packetsInTheSecondAfter)
        }
    }

    let bed: VoiceTestBed
    let netsim: CLIProcess
    let outage: Duration
    let alice: Call, bob: Call
    let listener: Listener
    let aliceEvents: CallEvents, bobEvents: CallEvents

    /// The server, the relay in front of its media (another port if 127.0.0.1:P is taken) and the
    /// call; the blackout starts 4 s after the relay.
    static func start(outageSeconds: Int) async throws -> RelayedCall {
        var failures: [String] = []
        for _ in 1...3 {
            let bed = try VoiceTestBed {
                $0.mediaHost = "127.0.0.2"
                $0.mediaAdvertisedHosts = ["127.0.0.1"]
            }
            let port = bed.server.media.localPort
            let netsim = try CLIProcess.start(try BuiltProducts.path("parley"), [
                "netsim", "--listen", "127.0.0.1:\(port)", "--forward", "127.0.0.2:\(port)",
                "--outage-at", "4", "--outage-for", "\(outageSeconds)",
            ], captureStandardError: true)
            do {
                try await netsim.waitForOutput("parley netsim relaying")
            } catch {
                failures.append("\(error)")
                netsim.terminate()
                await bed.stop()
                continue
            }
            do {
                let (alice, bob, listener, bobEvents, aliceEvents) = try await VoiceSDKTests.VoiceCallControlTests.connectedPair(bed)
                return RelayedCall(bed: bed, netsim: netsim, outage: .seconds(outageSeconds), alice: alice, bob: bob,
                                   listener: listener, aliceEvents: aliceEvents, bobEvents: bobEvents)
            } catch {
                netsim.terminate()
                await bed.stop()
                throw error
            }
        }
        throw TestTimeout(description: "no relay in front of the server's media: \(failures)")
    }

    /// Follows bob's received packets and jitter-buffer delay through the blackout, every 10 ms.
    func measure(resumeTimeout: Duration) async throws -> Figures {
        var before: [(ContinuousClock.Instant, Double)] = []
        var lastCount = 0, lastArrival = ContinuousClock.now
        // Until the blackout: bob's delay while audio flows.
        while !netsim.output.contains("outage begins") {
            guard alice.state == .connected else { throw TestTimeout(description: "the call ended before the outage") }
            let (count, delay) = await bobNow()
            if count > lastCount { lastArrival = .now }
            lastCount = count
            before.append((.now, delay))
            try await Task.sleep(for: .milliseconds(10))
        }
        let begun = ContinuousClock.now
        let flowing = before.filter { begun - $0.0 <= .seconds(1) }.map(\.1)
        guard begun - lastArrival < .milliseconds(200), flowing.count > 10 else {
            throw TestTimeout(description: "bob's audio was not flowing when the outage began (\(lastCount) packets)")
        }
        var lastBefore = lastArrival
        while !netsim.output.contains("outage ends") {
            let (count, _) = await bobNow()
            if count > lastCount { lastBefore = .now }
            lastCount = count
            try await Task.sleep(for: .milliseconds(10))
        }
        let returned = ContinuousClock.now
        while await bobNow().packets <= lastCount {
            guard ContinuousClock.now - returned < resumeTimeout else {
                throw TestTimeout(description: "bob received nothing within \(resumeTimeout) of the network's return; "
                                  + "alice \(aliceEvents.events), bob \(bobEvents.events)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let resumed = ContinuousClock.now
        try await Task.sleep(until: resumed + .seconds(2))
        let startCount = await bobNow().packets
        var after: [Double] = []
        while ContinuousClock.now - resumed < .seconds(3) {
            after.append(await bobNow().delay)
            try await Task.sleep(for: .milliseconds(10))
        }
        let figures = Figures(returned: returned, resumed: resumed - returned, gapBeyondOutage: resumed - lastBefore - outage,
                              delayBeforeMs: flowing.reduce(0, +) / Double(flowing.count),
                              delayAfterMs: after.reduce(0, +) / Double(max(after.count, 1)),
                              packetsInTheSecondAfter: await bobNow().packets - startCount)
        print("outage: \(outage) blackout: \(figures); alice \(aliceEvents.events.filter(\.isConnectionChange)), "
              + "bob \(bobEvents.events.filter(\.isConnectionChange))")
        return figures
    }

    private func bobNow() async -> (packets: Int, delay: Double) {
        let stats = await bob.stats().remoteAudioTrackStats.first
        return (stats?.packetsReceived ?? 0, stats?.jitterBufferDelayMs ?? 0)
    }

    func stop() {
        alice.disconnect()
        netsim.terminate()
        let (bed, listener) = (bed, listener)
        Task {
            await listener.stop()
            await bed.stop()
        }
    }
}

extension CallEvents.Event {
    /// Not a quality warning.
    var isConnectionChange: Bool {
        if case .warnings = self { false } else { true }
    }
}
