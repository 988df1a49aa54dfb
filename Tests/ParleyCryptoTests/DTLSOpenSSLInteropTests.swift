import Foundation
import ParleyCore
#if canImport(Glibc)
import Glibc
#endif
import ParleyTestSupport
import Testing
import ParleyCrypto
import ParleySRTP

/// Our client against `openssl s_server -dtls1_2 -use_srtp` over real UDP on 127.0.0.1
/// (pion/dtls `e2e/e2e_openssl_test.go` style). Bounded: every wait has a deadline, s_server
/// serves one connection (`-naccept 1`) and is killed when the test ends.
@Suite(.enabled(if: CommandLineTool.hasOpenSSL), .tags(.interop))
struct DTLSOpenSSLInteropTests {
    @Test func clientConnectsToOpenSSLServerAndExportsTheSameKeys() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-dtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        _ = try CommandLineTool.run(CommandLineTool.openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", cert, "-subj", "/CN=s_server", "-days", "1"])
        let line = try CommandLineTool.run(CommandLineTool.openssl, ["x509", "-in", cert, "-noout", "-fingerprint", "-sha256"])
        let hex = try #require(line.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        let serverFingerprint = try #require(DTLSFingerprint(sdpValue: "sha-256 " + hex))

        let port = try #require(LoopbackUDPSocket.freePort())
        let log = directory.appendingPathComponent("s_server.out")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CommandLineTool.openssl)
        server.arguments = ["s_server", "-dtls1_2", "-naccept", "1", "-accept", "127.0.0.1:\(port)",
                            "-cert", cert, "-key", key, "-use_srtp", "SRTP_AES128_CM_SHA1_80", "-verify", "1",
                            "-keymatexport", "EXTRACTOR-dtls_srtp", "-keymatexportlen", "60"]
        let output = try FileHandle(forWritingTo: log)
        server.standardOutput = output
        server.standardError = output
        let stdin = Pipe()  // kept open: s_server ends the session at EOF on stdin
        server.standardInput = stdin
        try server.runWithDefaultSignals()
        defer {
            // SIGKILL: children of the test runner may inherit a mask that blocks SIGTERM.
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
            try? stdin.fileHandleForWriting.close()
        }
        func serverLog() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        func waitFor(_ text: String, seconds: Int) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if serverLog().contains(text) { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        #expect(try await waitFor("ACCEPT", seconds: 10))

        let client = try DTLSSession(role: .client, certificate: CertificateIdentity(),
                                     remoteFingerprint: serverFingerprint, srtpProtectionProfiles: [0x0001],
                                     initialRetransmissionTimeout: .milliseconds(200))
        let socket = try LoopbackUDPSocket(connectingTo: port)
        client.start().forEach(socket.send)
        let deadline = ContinuousClock.now + .seconds(10)
        while case .handshaking = client.state, ContinuousClock.now < deadline {
            if let datagram = socket.receive() {
                client.receive(datagram).datagrams.forEach(socket.send)
            } else if let left = client.nextTimeout, left <= .zero {
                client.handleTimeout().datagrams.forEach(socket.send)
            }
        }
        try #require(client.state == .connected, "state \(client.state); s_server said: \(serverLog())")
        #expect(client.srtpProtectionProfile == 0x0001)

        #expect(try await waitFor("Keying material: ", seconds: 5))
        let reported = serverLog().split(separator: "\n").first { $0.contains("Keying material: ") }
            .map { String($0.split(separator: ":").last ?? "").trimmingCharacters(in: .whitespaces) }
        let ours = try client.exportKeyingMaterial(label: SRTPKeyingMaterial.exporterLabel, length: 60)
        #expect(reported == Hex.encode(ours).uppercased())
        #expect(serverLog().contains("SRTP Extension negotiated, profile=SRTP_AES128_CM_SHA1_80"))
        let keys = try SRTPKeyingMaterial(exporter: client, profile: .aes128CMHMACSHA1_80, isClient: true)
        #expect(keys.localKey == Array(ours[0..<16]) && keys.remoteKey == Array(ours[16..<32]))
        #expect(keys.localSalt == Array(ours[32..<46]) && keys.remoteSalt == Array(ours[46..<60]))
        client.close().forEach(socket.send)
    }
}
