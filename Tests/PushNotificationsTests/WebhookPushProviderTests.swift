import HTTPWire
import JSONWire
import ParleyNet
import PushNotifications
import Signaling
import Synchronization
import Testing

/// `WebhookPushProvider` against an in-process ParleyNet `HTTPServer`.
@Suite struct WebhookPushProviderTests {
    static let invite = VoicePushNotification(
        messageType: .call, callSid: "CA01", accountSid: "AC02", from: "client:alice", to: "client:bob", messageID: "NO03",
        bridgeToken: "bridge", customParameters: [("k", "v")])

    final class Received: Sendable {
        let requests = Mutex<[HTTPRequest]>([])
        var first: HTTPRequest? { requests.withLock { $0.first } }
    }

    /// A server that records requests and answers with the status named by the path (`/push/410`).
    static func withServer(_ body: (Int, Received) async throws -> Void) async throws {
        let received = Received()
        let server = HTTPServer(configuration: HTTPServer.Configuration()) { request in
            received.requests.withLock { $0.append(request) }
            let status = Int(request.path.split(separator: "/").last ?? "") ?? 200
            return HTTPResponse(status: status)
        }
        try server.start()
        do {
            try await body(server.localPort, received)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func postsThePayloadWithDeviceTokenAndIdentity() async throws {
        try await Self.withServer { port, received in
            let provider = try WebhookPushProvider(url: "http://127.0.0.1:\(port)/push/204")
            #expect(provider.kind == "webhook")
            try await provider.send(Self.invite, deviceToken: "device-abc")
            provider.shutdown()
            let request = try #require(received.first)
            #expect(request.method == "POST" && request.target == "/push/204")
            #expect(request.headers["Content-Type"] == "application/json")
            var expected = Self.invite.payload
            expected["device_token"] = .string("device-abc")
            expected["identity"] = .string("bob")
            #expect(try JSONValue.parse(request.body) == .object(expected))
            #expect(VoicePushNotification(json: request.body) == Self.invite)
        }
    }

    @Test(arguments: [
        (410, PushError.unregistered(reason: "webhook answered 410")),
        (503, .temporary(status: 503, reason: "webhook answered 503")),
        (429, .temporary(status: 429, reason: "webhook answered 429")),
        (400, .rejected(status: 400, reason: "webhook answered 400")),
    ])
    func mapsStatuses(status: Int, error: PushError) async throws {
        try await Self.withServer { port, _ in
            let client = try HTTPClient()
            let provider = try WebhookPushProvider(url: "http://127.0.0.1:\(port)/push/\(status)", client: client)
            await #expect(throws: error) { try await provider.send(Self.invite, deviceToken: "t") }
            client.shutdown()
        }
    }

    @Test func unreachableURLIsTemporary() async throws {
        let provider = try WebhookPushProvider(url: "http://127.0.0.1:9/push", timeout: .seconds(2))
        do {
            try await provider.send(Self.invite, deviceToken: "t")
            Issue.record("expected a failure")
        } catch {
            #expect(error.isRetryable)
        }
        provider.shutdown()
    }

    @Test func badURLIsAConfigurationError() {
        #expect(throws: PushError.self) { _ = try WebhookPushProvider(url: "ftp://example.com/push") }
    }
}
