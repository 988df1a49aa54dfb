import Foundation
import Synchronization
import Testing
@testable import ParleyVoice

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

        static func pair(_ bed: VoiceTestBed) async throws -> (Call, Call, Listener, CallEvents, CallEvents) {
            try await VoiceCallControlTests.connectedPair(bed)
        }
    }
}
