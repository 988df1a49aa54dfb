import Foundation
import Signaling
import WebRTC

/// One side of a test call: a signaling client and a WebRTC peer connection.
public struct TestParty: Sendable {
    public let signaling: SignalingTestClient
    public let peer: PeerConnection

    public init(_ signaling: SignalingTestClient, configuration: PeerConnection.Configuration = PeerConnection.Configuration()) throws {
        self.signaling = signaling
        peer = try PeerConnection(configuration: configuration)
    }

    /// Sends `invite` and returns the call SID once the server created the call.
    public func invite(to: String, params: [String: String] = [:]) async throws -> String {
        let offer = try await peer.createOffer()
        try await signaling.send(.invite(Invite(callId: UUID().uuidString, to: to, params: params, sdp: offer)), id: "i1")
        return try await signaling.expect("callCreated or error") { message -> String? in
            switch message {
            case .callCreated(let created): return created.callSid
            case .error(let body): return "error:\(body.code)"
            default: return nil
            }
        }
    }

    /// Waits for the media answer and connects.
    public func connectMedia() async throws {
        let sdp = try await signaling.expect("answer") { if case .answer(let a) = $0 { a.sdp } else { nil } }
        try await peer.setRemoteAnswer(sdp)
        guard await peer.waitUntilConnected(timeout: .seconds(10)) else {
            throw SignalingTestClient.Timeout(description: "media did not connect within 10 s")
        }
    }

    /// Accepts an incoming call and connects its media.
    public func accept(_ callSid: String) async throws {
        let offer = try await peer.createOffer()
        try await signaling.send(.accept(Accept(callSid: callSid, sdp: offer)))
        try await connectMedia()
    }

    public func expectIncoming() async throws -> Incoming {
        try await signaling.expect("incoming") { if case .incoming(let i) = $0 { i } else { nil } }
    }

    public func expectHangup(timeout: Duration = .seconds(10)) async throws -> Hangup {
        try await signaling.expect("hangup", timeout: timeout) { if case .hangup(let h) = $0 { h } else { nil } }
    }

    public func expectConnected() async throws {
        _ = try await signaling.expect("connected") { if case .connected = $0 { true } else { nil } }
    }

    public func close() async {
        await peer.close()
        await signaling.close()
    }
}
