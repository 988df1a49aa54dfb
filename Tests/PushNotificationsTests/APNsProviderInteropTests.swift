import AccessToken
import Foundation
import JSONWire
import ParleyCrypto
import ParleyTestSupport
import PushNotifications
import Signaling
import Testing

/// `APNsProvider` against an APNs emulation on the Python `h2` server: the server checks the
/// provider JWT with PyJWT and the public key, records every request, and answers 200, 410
/// Unregistered, 400 BadDeviceToken or 403 InvalidProviderToken.
@Suite(.serialized, .tags(.interop)) struct APNsProviderInteropTests {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let good = String(repeating: "0123456789abcdef", count: 4)
    static let dead = String(repeating: "a", count: 60) + "dead"
    static let bad = String(repeating: "b", count: 60) + "0bad"

    static let invite = VoicePushNotification(
        messageType: .call, callSid: "CA" + String(repeating: "1", count: 32), accountSid: "AC" + String(repeating: "2", count: 32),
        from: "client:alice", to: "client:bob", messageID: "NO" + String(repeating: "3", count: 32),
        bridgeToken: "bridge.token.value", customParameters: [("mood", "happy & calm"), ("ticket", "42")])

    struct Fixture {
        let server: H2TestServer
        let directory: URL
        let certificate: String
        let record: String

        func provider(key: P256SigningKey, clock: @escaping @Sendable () -> Int64) throws -> APNsProvider {
            let keyPath = directory.appendingPathComponent("AuthKey_\(APNsProviderInteropTests.keyID)-\(UUID().uuidString).p8").path
            try key.pkcs8PEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
            return try APNsProvider(configuration: APNsConfiguration(
                keyPath: keyPath, keyID: APNsProviderInteropTests.keyID, teamID: APNsProviderInteropTests.teamID,
                bundleID: "com.example.parley", endpoint: "https://127.0.0.1:\(server.port)", trustRootsPath: certificate,
                requestTimeout: .seconds(5)), clock: clock)
        }

        /// The requests the server recorded, in order.
        func recorded() throws -> [JSONObject] {
            let text = try String(contentsOfFile: record, encoding: .utf8)
            return try text.split(separator: "\n").map { try #require(try JSONValue.parse(Array($0.utf8)).objectValue) }
        }
    }

    static func withServer(key: P256SigningKey, _ body: (Fixture) async throws -> Void) async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, certKey) = try await makeSelfSignedCertificate(in: directory)
        let publicKey = directory.appendingPathComponent("apns-public.pem").path
        try key.verifyingKey.pem.write(toFile: publicKey, atomically: true, encoding: .utf8)
        let record = directory.appendingPathComponent("requests.jsonl").path
        FileManager.default.createFile(atPath: record, contents: nil)
        let server = try await H2TestServer(["--cert", cert, "--key", certKey, "--public-key", publicKey, "--record", record],
                                            logPath: directory.appendingPathComponent("server.log").path)
        do {
            try await body(Fixture(server: server, directory: directory, certificate: cert, record: record))
        } catch {
            Issue.record("server log: \(server.log)")
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func deliversVoIPPushesAndMapsAPNsAnswers() async throws {
        let key = try P256SigningKey.generate()
        let now = WallClock.now()
        try await Self.withServer(key: key) { fixture in
            let provider = try fixture.provider(key: key, clock: { now })
            #expect(provider.kind == "apns")
            try await provider.send(Self.invite, deviceToken: Self.good.uppercased())
            await #expect(throws: PushError.unregistered(reason: "Unregistered")) {
                try await provider.send(Self.invite, deviceToken: Self.dead)
            }
            await #expect(throws: PushError.badDeviceToken(reason: "BadDeviceToken")) {
                try await provider.send(Self.invite, deviceToken: Self.bad)
            }
            await #expect(throws: PushError.badDeviceToken(reason: "device token is not hexadecimal")) {
                try await provider.send(Self.invite, deviceToken: "not-a-token")
            }
            var cancel = Self.invite
            cancel.messageType = .cancel
            cancel.bridgeToken = nil
            cancel.customParameters = []
            try await provider.send(cancel, deviceToken: Self.good)
            await provider.shutdown()

            let requests = try fixture.recorded()
            #expect(requests.count == 4)  // the non-hex token never left the process
            #expect(requests.map { $0["device"]?.stringValue } == [Self.good, Self.dead, Self.bad, Self.good])
            for request in requests {
                #expect(request["jwt_ok"] == .bool(true), "PyJWT: \(String(describing: request["jwt_error"]))")
                #expect(request["jwt_header"] == .object(["alg": .string("ES256"), "kid": .string(Self.keyID)]))
                #expect(request["jwt_claims"] == .object(["iss": .string(Self.teamID), "iat": .integer(now)]))
                #expect(request["method"] == .string("POST"))
                #expect(request["scheme"] == .string("https"))
                #expect(request["authority"] == .string("127.0.0.1:\(fixture.server.port)"))
                let headers = try #require(request["headers"]?.objectValue)
                #expect(headers["apns-push-type"] == .string("voip"))
                #expect(headers["apns-topic"] == .string("com.example.parley.voip"))
                #expect(headers["apns-priority"] == .string("10"))
                #expect(headers["apns-expiration"] == .string("0"))
                #expect(headers["content-type"] == .string("application/json"))
            }
            #expect(requests[0]["path"] == .string("/3/device/\(Self.good)"))
            let body = try #require(requests[0]["body"]?.objectValue)
            #expect(body == Self.invite.payload)
            #expect(body["twi_message_type"] == .string("twilio.voice.call"))
            #expect(body["twi_params"] == .string("mood=happy+%26+calm&ticket=42"))
            #expect(VoicePushNotification(payload: body) == Self.invite)
            let cancelBody = try #require(requests[3]["body"]?.objectValue)
            #expect(cancelBody["twi_message_type"] == .string("twilio.voice.cancel"))
            #expect(cancelBody["twi_bridge_token"] == nil)
        }
    }

    @Test func tokenSignedWithAnotherKeyIsAnAuthenticationError() async throws {
        let serverKey = try P256SigningKey.generate()
        try await Self.withServer(key: serverKey) { fixture in
            let provider = try fixture.provider(key: try P256SigningKey.generate(), clock: { WallClock.now() })
            await #expect(throws: PushError.authentication(reason: "InvalidProviderToken")) {
                try await provider.send(Self.invite, deviceToken: Self.good)
            }
            await provider.shutdown()
            #expect(try fixture.recorded().first?["jwt_ok"] == .bool(false))
        }
    }

    @Test func unreachableEndpointIsTemporary() async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("key.p8").path
        try P256SigningKey.generate().pkcs8PEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        // Port 9 (discard) on loopback: nothing listens, so the connection is refused.
        let provider = try APNsProvider(configuration: APNsConfiguration(
            keyPath: keyPath, keyID: Self.keyID, teamID: Self.teamID, bundleID: "com.example.parley",
            endpoint: "https://127.0.0.1:9", requestTimeout: .seconds(2)))
        do {
            try await provider.send(Self.invite, deviceToken: Self.good)
            Issue.record("expected a failure")
        } catch {
            #expect(error.isRetryable && !error.invalidatesBinding)
        }
        await provider.shutdown()
    }

    @Test func missingKeyIsAConfigurationError() {
        #expect(throws: PushError.self) {
            _ = try APNsProvider(configuration: APNsConfiguration(keyPath: "/nonexistent/AuthKey.p8", keyID: Self.keyID,
                                                                 teamID: Self.teamID, bundleID: "com.example.parley"))
        }
    }
}
