import Foundation
import Glibc
import ParleyTestSupport
import Testing

/// `parley-server` as a real process: start, answer, survive garbage, stop gracefully on SIGTERM.
@Suite(.tags(.process)) struct ServerProcessTests {
    /// Opens a TCP connection to the server, writes `bytes`, and reads until the server closes or 5 s pass.
    static func exchange(port: Int, _ bytes: [UInt8]) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect: \(errno)") }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func answersSurvivesGarbageAndStopsOnSIGTERM() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let db = server.databasePath

        let health = try Self.exchange(port: server.port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(health.hasPrefix("HTTP/1.1 200"))

        // Garbage bytes ending a "head": a clear 400, then the connection is closed.
        var garbage = [UInt8](repeating: 0, count: 2048)
        for i in garbage.indices { garbage[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        garbage += Array("\r\n\r\n".utf8)
        let answer = try Self.exchange(port: server.port, garbage)
        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(80))")

        // An unterminated 1 MB header line: refused (431), not buffered.
        let long = Array("GET /".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        let refused = try Self.exchange(port: server.port, long)
        #expect(refused.hasPrefix("HTTP/1.1 431") || refused.hasPrefix("HTTP/1.1 414") || refused.hasPrefix("HTTP/1.1 400"),
                "\(refused.prefix(80))")

        // Still serving.
        let again = try Self.exchange(port: server.port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(again.hasPrefix("HTTP/1.1 200"))

        // The store holds secrets: owner-only.
        let mode = try FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Graceful stop.
        #expect(server.terminate() == 0)
    }

    /// Errors the listener answers by itself use the API's JSON shape, and a token over the
    /// verifier's 16 KB limit reaches the verifier (20101, as the README says) instead of tripping
    /// the head limit, which is 32 KB.
    @Test func oversizedInputsAnswerInTheAPIShape() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let bigToken = String(repeating: "a", count: 17 * 1024)
        let tokenAnswer = try Self.exchange(port: server.port, Array(
            "GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(bigToken)\r\nConnection: close\r\n\r\n".utf8))
        #expect(tokenAnswer.hasPrefix("HTTP/1.1 401"), "\(tokenAnswer.prefix(80))")
        #expect(tokenAnswer.contains(#""code":20101"#))
        let bigHead = try Self.exchange(port: server.port, Array(
            "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "p", count: 40 * 1024))\r\n\r\n".utf8))
        #expect(bigHead.hasPrefix("HTTP/1.1 431"), "\(bigHead.prefix(80))")
        #expect(bigHead.contains(#""code":31400"#) && bigHead.contains(#""status":431"#))
        let bigBody = try Self.exchange(port: server.port, Array(
            "POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 9000000\r\n\r\n".utf8))
        #expect(bigBody.hasPrefix("HTTP/1.1 413"), "\(bigBody.prefix(80))")
        #expect(bigBody.contains(#""code":31400"#) && bigBody.contains("application/json"))
    }

    /// `--tls-cert/--tls-key`: curl reaches /healthz over HTTPS, trusting only that certificate.
    @Test func servesHTTPSWithTheGivenCertificate() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        let openssl = try Tool.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                                       "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                                                       "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        #expect(openssl.status == 0, "\(openssl.stderr)")
        let server = try ServerProcess(arguments: ["--tls-cert", cert, "--tls-key", key])
        defer { server.stop() }
        let curl = try Tool.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, "https://127.0.0.1:\(server.port)/healthz"])
        #expect(curl.status == 0, "\(curl.stderr)")
        #expect(curl.stdout.contains(#""status":"ok""#))
        // Plain HTTP on the TLS port is refused, and the server keeps serving.
        let plain = try Tool.run("/usr/bin/curl", ["-sS", "--max-time", "5", "http://127.0.0.1:\(server.port)/healthz"])
        #expect(plain.status != 0 || !plain.stdout.contains("ok"))
        let again = try Tool.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cert, "https://127.0.0.1:\(server.port)/healthz"])
        #expect(again.stdout.contains(#""status":"ok""#))
    }

    @Test func rejectsBadArguments() throws {
        let result = try Executables.run("parley-server", ["--http", "nonsense"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("HOST:PORT"))
    }
}
