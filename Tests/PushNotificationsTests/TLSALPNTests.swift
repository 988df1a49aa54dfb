import Foundation
import ParleyCrypto
import ParleyTestSupport
import Testing

/// ALPN (RFC 7301) on `TLSContext`/`TLSSession`: two in-memory sessions pump records to each other.
@Suite(.tags(.interop)) struct TLSALPNTests {
    static func handshake(client clientALPN: [String], server serverALPN: [String]) async throws
        -> (client: String?, server: String?, ok: Bool) {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key) = try await makeSelfSignedCertificate(in: directory)
        let serverContext = try TLSContext(configuration: TLSConfiguration(certificatePath: cert, privateKeyPath: key,
                                                                           alpnProtocols: serverALPN), isServer: true)
        let clientContext = try TLSContext(configuration: .client(trustRootsPath: cert, alpnProtocols: clientALPN), isServer: false)
        let server = try TLSSession(context: serverContext)
        let client = try TLSSession(context: clientContext, serverName: "127.0.0.1")
        var done = (client: false, server: false)
        for _ in 0..<10 {
            do {
                done.client = try client.handshake()
                var bytes: [UInt8] = []
                client.drainCiphertext(into: &bytes)
                bytes.withUnsafeBytes { server.feed($0) }
                done.server = try server.handshake()
                bytes = []
                server.drainCiphertext(into: &bytes)
                bytes.withUnsafeBytes { client.feed($0) }
            } catch {
                return (client.negotiatedProtocol, server.negotiatedProtocol, false)
            }
            if done.client && done.server { break }
        }
        return (client.negotiatedProtocol, server.negotiatedProtocol, done.client && done.server)
    }

    @Test func serverPicksItsFirstProtocolTheClientOffers() async throws {
        let result = try await Self.handshake(client: ["http/1.1", "h2"], server: ["h2", "http/1.1"])
        #expect(result.ok && result.client == "h2" && result.server == "h2")
    }

    @Test func withoutALPNNothingIsNegotiated() async throws {
        let result = try await Self.handshake(client: [], server: ["h2"])
        #expect(result.ok && result.client == nil && result.server == nil)
        let plain = try await Self.handshake(client: ["h2"], server: [])
        #expect(plain.ok && plain.client == nil)
    }

    @Test func noCommonProtocolFailsTheHandshake() async throws {
        let result = try await Self.handshake(client: ["spdy/3"], server: ["h2"])
        #expect(!result.ok)
    }

    @Test func wireFormat() {
        #expect(TLSConfiguration(alpnProtocols: ["h2", "", "http/1.1"]).alpnWireFormat
                == [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8))
    }
}
