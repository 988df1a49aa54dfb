import Foundation
import ParleyClientCore
import ParleyServer
import ParleyStore
import PlatformCore
import Synchronization
import Testing
@testable import ParleyVoice
import WebRTC

/// Reconnection (issue 6 §3) end to end: the caller's signaling socket is cut and its session
/// resumed; its media is blocked until ICE notices, then unblocked and restarted. Each time the
/// delegate hears `isReconnectingWithError` with the seed's code and then `callDidReconnect`, and
/// the call goes on.
extension VoiceSDKTests {
    @Suite struct VoiceReconnectionTests {
        @Test func cutSignalingSocketIsResumed() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let (alice, bob, listener, bobEvents, aliceEvents) = try await Self.pair(bed)
            let channel = try #require(alice.snapshot.withLock { $0.channel })
            await channel.simulateDrop()
            try await aliceEvents.wait(for: "reconnected") { $0.contains(.reconnected) }
            #expect(aliceEvents.events.contains(.reconnecting(53001)))
            #expect(alice.state == .connected)
            // The resumed session carries the call: hold reaches the server, hangup reaches bob.
            alice.isOnHold = true
            try await Task.sleep(for: .milliseconds(500))
            alice.isOnHold = false
            alice.disconnect()
            try await bobEvents.wait(for: "bob disconnected") { $0.contains(.disconnected(nil)) }
            #expect(bob.state == .disconnected)
            await listener.stop()
        }

        @Test func blockedMediaRecoversThroughAnICERestart() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let (alice, bob, listener, _, aliceEvents) = try await Self.pair(bed)
            let media = try #require(alice.snapshot.withLock { $0.media })
            await media.peer.simulateNetworkOutage(true)
            try await aliceEvents.wait(for: "reconnecting", timeout: .seconds(15)) { $0.contains(.reconnecting(53405)) }
            #expect(alice.state == .reconnecting)
            await media.peer.simulateNetworkOutage(false)
            try await aliceEvents.wait(for: "reconnected", timeout: .seconds(10)) { $0.contains(.reconnected) }
            #expect(alice.state == .connected)
            let before = await bob.stats().remoteAudioTrackStats.first?.packetsReceived ?? 0
            try await Task.sleep(for: .seconds(1))
            let after = await bob.stats().remoteAudioTrackStats.first?.packetsReceived ?? 0
            #expect(after - before > 30, "bob received \(after - before) packets in the second after reconnecting")
            alice.disconnect()
            await listener.stop()
        }

        /// Revoking the key that signed both tokens ends the call (with 20103), and
        /// the SDK does not try to resume a session the server closed for cause (4401).
        @Test func revokedKeyEndsTheCallAndIsNotResumed() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            // Insights batches posted with the revoked token would count as 20103 rejections too.
            Voice.isInsightsEnabled = false
            defer { Voice.isInsightsEnabled = true }
            let (alice, _, listener, bobEvents, aliceEvents) = try await Self.pair(bed)
            try bed.server.store.revokeAPIKey(sid: bed.server.defaultCredentials.apiKey.sid)
            // Whichever session the server ends first hears 20103; the other leg ends as a far-end hangup.
            let ended: ([CallEvents.Event]) -> Bool = { $0.contains { if case .disconnected = $0 { true } else { false } } }
            try await aliceEvents.wait(for: "alice disconnected", ended)
            try await bobEvents.wait(for: "bob disconnected", ended)
            #expect((aliceEvents.events + bobEvents.events).contains(.disconnected(20103)))
            #expect(alice.state == .disconnected)
            #expect(!aliceEvents.events.contains(.reconnecting(53001)), "a revoked session is not reconnecting")
            // Resume attempts would be refused with 20103, one a second: none come.
            try await Task.sleep(for: .seconds(2))
            #expect(bed.server.metrics.tokenRejectionsByCode[20103] == nil)
            await listener.stop()
        }

        static func pair(_ bed: VoiceTestBed) async throws -> (Call, Call, Listener, CallEvents, CallEvents) {
            try await VoiceCallControlTests.connectedPair(bed)
        }
    }
}
