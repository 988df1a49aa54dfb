import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing

/// Incoming calls through push bindings: the webhook push provider, registration over REST, the
/// Twilio payload keys, cancel pushes, and bindings surviving a restart.
@Suite(.serialized, .tags(.interop)) struct VoicePushTests {
    /// A push relay: records every JSON body POSTed to it.
    final class PushRelay: Sendable {
        let server: HTTPServer
        private let bodies: Bodies
        final class Bodies: Sendable {
            let list = Mutex<[JSONObject]>([])
            /// Each push as it arrived: the request target, the raw body, the signature header.
            let raw = Mutex<[(target: String, body: [UInt8], signature: String?)]>([])
        }

        init() throws {
            let bodies = Bodies()
            self.bodies = bodies
            server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
                if let object = try? JSONValue.parse(request.body).objectValue { bodies.list.withLock { $0.append(object) } }
                bodies.raw.withLock { $0.append((request.target, request.body, request.headers["X-Twilio-Signature"])) }
                return HTTPResponse(status: 200)
            }
            try server.start()
        }

        var url: String { "http://127.0.0.1:\(server.localPort)/push" }
        var received: [JSONObject] { bodies.list.withLock { $0 } }
        var requests: [(target: String, body: [UInt8], signature: String?)] { bodies.raw.withLock { $0 } }

        func wait(count: Int) async throws -> [JSONObject] {
            let deadline = ContinuousClock.now + .seconds(5)
            while received.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            return received
        }
    }

    /// `twilio.request_validator.RequestValidator(authToken).validate(url, body, signature)`, run in the project venv.
    static func requestValidatorAccepts(url: String, body: [UInt8], signature: String, authToken: String) throws -> Bool {
        let script = """
        import sys
        from twilio.request_validator import RequestValidator
        print(RequestValidator(sys.argv[1]).validate(sys.argv[2], sys.stdin.read(), sys.argv[3]))
        """
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent(".venv/bin/python3")
        process.arguments = ["-c", script, authToken, url, signature]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.runWithDefaultSignals()
        input.fileHandleForWriting.write(Data(body))
        try input.fileHandleForWriting.close()
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return answer.trimmingCharacters(in: .whitespacesAndNewlines) == "True"
    }

    private func register(_ h: VoiceHarness, identity: String, device: String) async throws -> Int {
        let client = try HTTPClient()
        var request = HTTPRequest(method: "POST")
        request.headers.set("Authorization", "Bearer \(try h.token(identity))")
        request.headers.set("Content-Type", "application/json")
        request.body = Array(#"{"device_token": "\#(device)", "provider": "webhook"}"#.utf8)
        return try await client.send(request, to: h.baseURL + "/v1/registrations").status
    }

    @Test func inviteReachesABindingByPushAndTheCalleeAcceptsOverSignaling() async throws {
        let relay = try PushRelay()
        let h = try await VoiceHarness.start { $0.pushWebhookURL = relay.url }
        #expect(try await register(h, identity: "bob", device: "device-bob-1") == 201)
        #expect(try await register(h, identity: "bob", device: "device-bob-1") == 200)

        let alice = try TestParty(try await h.client("alice"))
        let callSid = try await alice.invite(to: "bob", params: ["topic": "support"])
        let pushes = try await relay.wait(count: 1)
        let push = try #require(pushes.first)
        #expect(push["twi_message_type"]?.stringValue == "twilio.voice.call")
        #expect(push["twi_from"]?.stringValue == "client:alice")
        #expect(push["twi_to"]?.stringValue == "client:bob")
        #expect(push["twi_account_sid"]?.stringValue == h.credentials.account.sid)
        #expect(push["device_token"]?.stringValue == "device-bob-1")
        let childSid = try #require(push["twi_call_sid"]?.stringValue)
        #expect(childSid != callSid)
        // Signed as the vendor signs JSON webhooks: the twilio library's RequestValidator agrees.
        let signed = try #require(relay.requests.first)
        #expect(signed.target.contains("bodySHA256="))
        let url = "http://127.0.0.1:\(relay.server.localPort)\(signed.target)"
        #expect(try Self.requestValidatorAccepts(url: url, body: signed.body, signature: signed.signature ?? "",
                                                 authToken: h.credentials.account.authToken))
        #expect(try !Self.requestValidatorAccepts(url: url, body: signed.body + [0x20], signature: signed.signature ?? "",
                                                  authToken: h.credentials.account.authToken), "a changed body must not validate")
        _ = try await alice.signaling.expect("ringing") { if case .ringing = $0 { true } else { nil } }

        // The app wakes up, connects, and accepts the call named in the push.
        let bob = try TestParty(try await h.client("bob"))
        try await alice.connectMedia()
        try await bob.accept(childSid)
        try await alice.expectConnected()
        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        _ = try await bob.expectHangup()
        await alice.close()
        await bob.close()
        await h.stop()
        await relay.server.shutdown()
    }

    @Test func cancelledInviteSendsACancelPush() async throws {
        let relay = try PushRelay()
        let h = try await VoiceHarness.start { $0.pushWebhookURL = relay.url }
        #expect(try await register(h, identity: "bob", device: "device-bob-2") == 201)
        let alice = try TestParty(try await h.client("alice"))
        let callSid = try await alice.invite(to: "bob")
        _ = try await relay.wait(count: 1)
        try await alice.signaling.send(.cancel(CallReference(callSid: callSid)))
        let pushes = try await relay.wait(count: 2)
        #expect(pushes.count == 2)
        #expect(pushes.last?["twi_message_type"]?.stringValue == "twilio.voice.cancel")
        #expect(pushes.last?["twi_call_sid"]?.stringValue == pushes.first?["twi_call_sid"]?.stringValue)
        await alice.close()
        await h.stop()
        await relay.server.shutdown()
    }

    @Test func bindingSurvivesAServerRestart() async throws {
        let relay = try PushRelay()
        let path = NSTemporaryDirectory() + "parley-push-\(UUID().uuidString).db"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try await VoiceHarness.start(store: try SQLiteAccountStore(path: path)) { $0.pushWebhookURL = relay.url }
        #expect(try await register(first, identity: "bob", device: "device-bob-3") == 201)
        await first.stop()

        let second = try await VoiceHarness.start(store: try SQLiteAccountStore(path: path)) { $0.pushWebhookURL = relay.url }
        let alice = try TestParty(try await second.client("alice"))
        _ = try await alice.invite(to: "bob")
        let pushes = try await relay.wait(count: 1)
        #expect(pushes.first?["device_token"]?.stringValue == "device-bob-3")
        await alice.close()
        await second.stop()
        await relay.server.shutdown()
    }
}
