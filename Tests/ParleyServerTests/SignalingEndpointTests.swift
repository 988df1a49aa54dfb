import Foundation
import ParleyNet
import ParleyServer
import ParleyTestSupport
import PlatformCore
import Signaling
import Testing
import WebSocketWire

/// The signaling endpoint under bad input: every malformed message is answered with an error
/// and the connection stays usable; oversize frames and bad hellos close it; the server keeps
/// serving other clients throughout.
@Suite(.serialized) struct SignalingEndpointTests {
    private func raw(_ h: VoiceHarness) async throws -> WebSocket {
        try await WebSocket.connect(url: h.baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/v1/signaling")
    }

    private func nextEnvelope(_ socket: WebSocket) async throws -> SignalingEnvelope? {
        guard let message = await socket.receive() else { return nil }
        guard case .text(let text) = message else { return nil }
        return try SignalingCodec.decode(text)
    }

    @Test func badHellosAreRefusedWithTheTokenCodeAnd4401() async throws {
        let h = try await VoiceHarness.start()
        let socket = try await raw(h)
        try await socket.send(text: #"{"type":"hello","v":1,"token":"not-a-jwt","id":"h1"}"#)
        let reply = try #require(try await nextEnvelope(socket))
        guard case .error(let body) = reply.message else { Issue.record("expected error, got \(reply)"); return }
        #expect(body.code == 20101)
        #expect(reply.ref == "h1")
        while await socket.receive() != nil {}
        #expect(socket.closeCode?.rawValue == 4401)

        let versioned = try await raw(h)
        try await versioned.send(text: #"{"type":"hello","v":0,"token":"x"}"#)
        let refused = try #require(try await nextEnvelope(versioned))
        guard case .error(let versionError) = refused.message else { Issue.record("expected error"); return }
        // Versions start at 1: `v: 0` is a malformed hello (31400), not a version to negotiate.
        #expect(versionError.code == 31400)
        while await versioned.receive() != nil {}
        #expect(versioned.closeCode?.rawValue == 4401)
        await h.stop()
    }

    @Test func malformedMessagesGetErrorsAndTheConnectionStaysUp() async throws {
        let h = try await VoiceHarness.start()
        let client = try await h.client("alice")
        for (text, code) in [("{not json", 31100), (#"{"type":"teleport"}"#, 31100), (#"{"type":"invite","id":"x"}"#, 31100),
                             (#"{"type":"welcome","session":"s","identity":"i","v":1}"#, 31100),
                             (#"{"type":"dtmf","callSid":"CA1","digits":"12x"}"#, 31400)] {
            try await client.webSocket.send(text: text)
            let body = try await client.expect("error for \(text)") { if case .error(let e) = $0 { e } else { nil } }
            #expect(body.code == code, "\(text)")
        }
        try await client.send(.ping, id: "p1")
        _ = try await client.expect("pong") { if case .pong = $0 { true } else { nil } }
        #expect(h.server.metrics.render().contains("parley_signaling_errors_total{code=\"31100\"} 4"))
        await client.close()
        await h.stop()
    }

    @Test func oversizeMessagesCloseWith1009AndOthersAreServed() async throws {
        let h = try await VoiceHarness.start()
        let big = try await h.client("alice")
        let huge = #"{"type":"ping","pad":""# + String(repeating: "x", count: 70_000) + #""}"#
        try await big.webSocket.send(text: huge)
        while await big.webSocket.receive() != nil {}
        #expect(big.webSocket.closeCode == .messageTooBig)
        let other = try await h.client("bob")
        try await other.send(.ping)
        _ = try await other.expect("pong") { if case .pong = $0 { true } else { nil } }
        await other.close()
        await h.stop()
    }
}
