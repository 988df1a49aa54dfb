import AccessToken
import HTTPWire
import WebSocketWire

/// Throughput of the pure parsers and of token minting/verification, on one core.
enum ParserBench {
    static func runAll() {
        print("# parsers (one core, in-process)")
        let request = Array("GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: parley-bench\r\nAccept: */*\r\nAuthorization: Bearer x\r\n\r\n".utf8)
        measure("HTTP request parse (5 headers)", unitBytes: request.count) {
            var parser = HTTPRequestParser()
            parser.append(request)
            _ = try? parser.next()
        }
        let chunked = Array("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n".utf8)
            + [UInt8](repeating: 0x61, count: 1024) + Array("\r\n0\r\n\r\n".utf8)
        measure("HTTP chunked request parse (1 KB body)", unitBytes: chunked.count) {
            var parser = HTTPRequestParser()
            parser.append(chunked)
            _ = try? parser.next()
        }
        let frame = WebSocketFrame(fin: true, opcode: .binary, payload: [UInt8](repeating: 7, count: 1024),
                                   maskingKey: 0x0102_0304).serialized
        measure("WebSocket masked frame parse (1 KB)", unitBytes: frame.count) {
            var parser = WebSocketFrameParser(role: .server)
            parser.append(frame)
            _ = try? parser.next()
        }

        let account = "AC" + String(repeating: "a", count: 32), key = "SK" + String(repeating: "b", count: 32)
        let secret = "benchmark-secret-benchmark-secre"
        let grants: [AccessTokenGrant] = [.voice(VoiceGrant(incomingAllow: true, outgoingApplicationSid: "AP" + String(repeating: "c", count: 32)))]
        measure("access token mint (HS256)") {
            _ = try? AccessTokenBuilder.mint(accountSid: account, apiKeySid: key, apiSecret: secret, identity: "alice", grants: grants)
        }
        let token = try! AccessTokenBuilder.mint(accountSid: account, apiKeySid: key, apiSecret: secret, identity: "alice", grants: grants)
        let verifier = AccessTokenVerifier(resolver: FixedResolver(key: key, account: account, secret: secret))
        measure("access token verify (HS256, full policy)") { _ = try? verifier.verify(token) }
        measure("JWT parse only") { _ = try? JWT.parse(token) }
        SIPParserBench.runAll()
    }
}

struct FixedResolver: APIKeyResolver {
    let key: String, account: String, secret: String
    func secret(forKey sid: String) -> (accountSid: String, secret: [UInt8])? {
        sid == key ? (account, Array(secret.utf8)) : nil
    }
}
