import Foundation
import HTTPWire
import ParleyCrypto
import ParleyNet
import ParleyTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)), .tags(.interop)) struct TLSTests {
    @Test func opensslSClientAndHTTPClientOverTLS() async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key) = try await makeSelfSignedCertificate(in: directory)
        var configuration = HTTPServer.Configuration()
        configuration.tls = .server(certificatePath: cert, privateKeyPath: key)
        try await withServer(configuration) { server in
            let port = server.localPort
            // openssl s_client as the peer.
            let result = try await runProcess("/usr/bin/openssl", [
                "s_client", "-connect", "127.0.0.1:\(port)", "-quiet", "-ign_eof", "-CAfile", cert, "-verify_return_error",
            ], stdin: Array("GET /tls HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), timeout: .seconds(20))
            #expect(result.stdout.hasPrefix("HTTP/1.1 200 OK"), "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.hasSuffix("GET /tls 0 "))

            // Our client, verifying against the self-signed certificate, with keep-alive.
            let client = try HTTPClient(configuration: HTTPClient.Configuration(tls: .client(trustRootsPath: cert)))
            defer { client.shutdown() }
            for path in ["/one", "/two"] {
                let response = try await client.send(HTTPRequest(method: "PUT", body: [1, 2, 3]), to: "https://127.0.0.1:\(port)\(path)")
                #expect(response.status == 200)
                #expect(response.bodyText.hasPrefix("PUT \(path) 3"))
            }

            // Without trusting the certificate, verification fails.
            let strict = try HTTPClient()
            defer { strict.shutdown() }
            await #expect(throws: NetError.self) { try await strict.get("https://127.0.0.1:\(port)/", timeout: .seconds(5)) }
        }
    }
}
