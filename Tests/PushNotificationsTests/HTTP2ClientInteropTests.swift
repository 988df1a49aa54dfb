import Foundation
import JSONWire
import ParleyCrypto
import ParleyNet
import ParleyTestSupport
import Testing

/// `HTTP2Client` against the Python `h2` library's server (h2_test_server.py) over TLS with ALPN:
/// flow control both ways, the server's stream limit, PING, GOAWAY with reconnection and retry,
/// timeouts, certificate checks, and cleartext prior knowledge.
@Suite(.serialized, .tags(.interop)) struct HTTP2ClientInteropTests {
    struct Fixture {
        let server: H2TestServer
        let client: HTTP2Client
        let directory: URL

        func stats() async throws -> JSONObject {
            let response = try await client.send(method: "GET", path: "/stats")
            return try #require(try JSONValue.parse(response.body).objectValue)
        }
    }

    static func withServer(maxStreams: Int = 100, plain: Bool = false,
                           configuration: HTTP2Client.Configuration = HTTP2Client.Configuration(requestTimeout: .seconds(5)),
                           _ body: (Fixture) async throws -> Void) async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key) = try await makeSelfSignedCertificate(in: directory)
        var arguments = ["--max-concurrent-streams", "\(maxStreams)"]
        arguments += plain ? ["--plain"] : ["--cert", cert, "--key", key]
        let server = try await H2TestServer(arguments, logPath: directory.appendingPathComponent("server.log").path)
        var configuration = configuration
        configuration.tls = .client(trustRootsPath: cert)
        let client = try HTTP2Client(url: "\(plain ? "http" : "https")://127.0.0.1:\(server.port)", configuration: configuration)
        let fixture = Fixture(server: server, client: client, directory: directory)
        do {
            try await body(fixture)
        } catch {
            Issue.record("server log: \(server.log)")
            await client.shutdown()
            await server.stop()
            throw error
        }
        await client.shutdown()
        await server.stop()
    }

    @Test func largeBodiesFlowBothWays() async throws {
        // A 64 KiB receive window makes the client send WINDOW_UPDATEs; the server's default 65,535
        // makes it wait for the server's.
        var configuration = HTTP2Client.Configuration(requestTimeout: .seconds(10))
        configuration.receiveWindow = 65_535
        try await Self.withServer(configuration: configuration) { fixture in
            let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let response = try await fixture.client.send(method: "POST", path: "/echo", headers: [("X-Test", "1")], body: body)
            #expect(response.status == 200)
            #expect(response.header("x-received-length") == "300000")
            #expect(response.body == body)
            let stats = try await fixture.stats()
            #expect(stats["alpn"] == .array([.string("h2")]))
            #expect(stats["connections"] == .integer(1))
        }
    }

    @Test func concurrentStreamsStayWithinTheServerLimit() async throws {
        try await Self.withServer(maxStreams: 4) { fixture in
            let client = fixture.client
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 { group.addTask { try await client.send(method: "GET", path: "/delay?ms=60").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 16))
            let stats = try await fixture.stats()
            #expect(stats["max_concurrent"] == .integer(4))
            #expect(stats["connections"] == .integer(1))
        }
    }

    @Test func serverPingIsAcknowledged() async throws {
        try await Self.withServer { fixture in
            let response = try await fixture.client.send(method: "GET", path: "/ping")
            #expect(response.status == 200 && response.bodyText == "pong-acked")
            #expect(try await fixture.stats()["pings_acked"] == .integer(1))
        }
    }

    @Test func afterGoAwayTheNextRequestReconnects() async throws {
        try await Self.withServer { fixture in
            let first = try await fixture.client.send(method: "GET", path: "/goaway")
            #expect(first.status == 200 && first.bodyText == "bye")
            let second = try await fixture.client.send(method: "POST", path: "/echo", body: Array("again".utf8))
            #expect(second.bodyText == "again")
            #expect(try await fixture.stats()["connections"] == .integer(2))
        }
    }

    @Test func streamAboveGoAwayLastStreamIsRetriedOnANewConnection() async throws {
        try await Self.withServer { fixture in
            let response = try await fixture.client.send(method: "GET", path: "/goaway-before")
            #expect(response.status == 200 && response.bodyText == "second connection")
            #expect(try await fixture.stats()["connections"] == .integer(2))
        }
    }

    @Test func timedOutRequestIsResetAndTheConnectionStaysUsable() async throws {
        try await Self.withServer { fixture in
            await #expect(throws: NetError.self) {
                _ = try await fixture.client.send(HTTP2Request(method: "GET", path: "/slow"), timeout: .milliseconds(300))
            }
            let response = try await fixture.client.send(method: "POST", path: "/echo", body: [1, 2, 3])
            #expect(response.body == [1, 2, 3])
            let stats = try await fixture.stats()
            #expect(stats["resets"] == .integer(1))
            #expect(stats["connections"] == .integer(1))
        }
    }

    @Test func untrustedCertificateIsRefused() async throws {
        try await Self.withServer { fixture in
            let stranger = try HTTP2Client(url: "https://127.0.0.1:\(fixture.server.port)",
                                           configuration: HTTP2Client.Configuration(requestTimeout: .seconds(5)))
            await #expect(throws: NetError.self) { _ = try await stranger.send(method: "GET", path: "/stats") }
            await stranger.shutdown()
        }
    }

    @Test func cleartextWithPriorKnowledge() async throws {
        try await Self.withServer(plain: true) { fixture in
            let response = try await fixture.client.send(method: "POST", path: "/echo", body: Array("plain".utf8))
            #expect(response.status == 200 && response.bodyText == "plain")
        }
    }
}
