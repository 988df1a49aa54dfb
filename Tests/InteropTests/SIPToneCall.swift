import AccessToken
import Foundation
import ParleyServer
import ParleyTestSupport
import Signaling
import Synchronization
import WebRTC

/// The WebRTC side of the SIP trunk tests: the client `alice`, whose application is
/// `applicationSid`, dials `to`, connects, sends a tone while keeping what she hears, and hangs up.
enum SIPToneCall {
    struct Outcome {
        var callSid: String
        /// The Opus payloads alice received, in order.
        var frames: [[UInt8]]
    }

    /// alice calls `to` and connects her media, then leaves the call to the server (her
    /// connection stays open until the test ends; `close` it then).
    static func invite(_ server: PlatformServer, applicationSid: String, to: String) async throws -> (callSid: String, alice: TestParty) {
        let token = try InProcessPlatform.token(server, identity: "alice",
                                                grants: [.voice(VoiceGrant(incomingAllow: false, outgoingApplicationSid: applicationSid))])
        let alice = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token))
        return (try await alice.invite(to: to), alice)
    }

    /// `expectRinging`: the far end's 180 must ring alice before its answer connects her.
    static func run(_ server: PlatformServer, applicationSid: String, to: String, frequency: Double = 600, seconds: Double = 4,
                    expectRinging: Bool = false) async throws -> Outcome {
        let token = try InProcessPlatform.token(server, identity: "alice",
                                                grants: [.voice(VoiceGrant(incomingAllow: false, outgoingApplicationSid: applicationSid))])
        let alice = try TestParty(try await SignalingTestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token))
        do {
            let callSid = try await alice.invite(to: to)
            try await alice.connectMedia()
            if expectRinging {
                _ = try await alice.signaling.expect("ringing") { if case .ringing = $0 { true } else { nil } }
            }
            try await alice.expectConnected()
            let heard = Mutex<[[UInt8]]>([])
            let listener = Task {
                for await packet in alice.peer.audio where packet.payload.count > 2 { heard.withLock { $0.append(packet.payload) } }
            }
            try await ToneAudio.send(alice.peer, frequency: frequency, seconds: seconds)
            listener.cancel()
            try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
            await alice.close()
            return Outcome(callSid: callSid, frames: heard.withLock { $0 })
        } catch {
            await alice.close()
            throw error
        }
    }
}
