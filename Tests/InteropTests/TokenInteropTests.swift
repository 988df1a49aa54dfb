import AccessToken
import Foundation
import JSONWire
import ParleyCore
import ParleyTestSupport
import Testing

/// Tokens minted by the Python `twilio` library verify in Parley with identical claims, and tokens
/// minted by Parley verify with PyJWT and decode to what `twilio` produces for the same inputs.
///
/// Needs the project venv (`.venv` at the package root, with `twilio` and `pyjwt`); without it these
/// tests fail, they do not skip.
@Suite(.tags(.interop)) struct TokenInteropTests {
    static let account = "AC" + String(repeating: "0123456789abcdef", count: 2)
    static let key = "SK" + String(repeating: "fedcba9876543210", count: 2)
    static let secret = "interopSecret0123456789abcdefABCD"
    static let app = "AP" + String(repeating: "a1", count: 16)
    static let push = "CR" + String(repeating: "c3", count: 16)

    /// One set of inputs, given to both minters.
    struct Case {
        let name: String
        let identity: String
        let ttl: Int64
        let region: String?
        let voice: VoiceGrant?
        let video: VideoGrant?

        var grants: [AccessTokenGrant] { [voice.map(AccessTokenGrant.voice), video.map(AccessTokenGrant.video)].compactMap { $0 } }

        var json: JSONValue {
            var o: JSONObject = ["name": .string(name), "identity": .string(identity), "ttl": .integer(ttl)]
            if let region { o["region"] = .string(region) }
            if let voice {
                var v: JSONObject = ["incoming": .bool(voice.incomingAllow)]
                if let app = voice.outgoingApplicationSid { v["app"] = .string(app) }
                if !voice.outgoingApplicationParams.isEmpty {
                    var p = JSONObject()
                    for (k, value) in voice.outgoingApplicationParams { p[k] = .string(value) }
                    v["params"] = .object(p)
                }
                if let push = voice.pushCredentialSid { v["push"] = .string(push) }
                o["voice"] = .object(v)
            }
            if let video { o["video"] = .object(video.room.map { ["room": .string($0)] } ?? [:]) }
            return .object(o)
        }
    }

    static let cases: [Case] = [
        Case(name: "voice-full", identity: "alice", ttl: 3600, region: "au1",
             voice: VoiceGrant(incomingAllow: true, outgoingApplicationSid: app,
                               outgoingApplicationParams: ["to": "bob", "mode": "conference"], pushCredentialSid: push),
             video: nil),
        Case(name: "video-room", identity: "bob_2", ttl: 600, region: nil, voice: nil, video: VideoGrant(room: "standup")),
        Case(name: "voice-and-video", identity: "Carol_99", ttl: 86_400, region: "ie1",
             voice: VoiceGrant(outgoingApplicationSid: app), video: VideoGrant()),
    ]

    static var casesJSON: JSONValue { .array(cases.map(\.json)) }

    struct Resolver: APIKeyResolver {
        func secret(forKey sid: String) -> (accountSid: String, secret: [UInt8])? {
            sid == TokenInteropTests.key ? (TokenInteropTests.account, Array(TokenInteropTests.secret.utf8)) : nil
        }
    }

    @Test func twilioMintedTokensVerifyInParley() throws {
        let input: JSONObject = ["account": .string(Self.account), "key": .string(Self.key), "secret": .string(Self.secret),
                                 "cases": Self.casesJSON]
        let output = try Python.run(Python.twilioMint, input: .object(input))
        guard case .array(let results) = output else { Issue.record("bad output: \(output)"); return }
        #expect(results.count == Self.cases.count)
        let verifier = AccessTokenVerifier(resolver: Resolver())
        for (c, result) in zip(Self.cases, results) {
            let r = try #require(result.objectValue)
            let token = try #require(r["token"]?.stringValue)
            let verified = try verifier.verify(token)
            #expect(verified.claims == r["payload"]?.objectValue, "\(c.name): claims differ")
            #expect(verified.header == r["header"]?.objectValue, "\(c.name): header differs")
            #expect(verified.accountSid == Self.account && verified.apiKeySid == Self.key)
            #expect(verified.identity == c.identity)
            #expect(verified.voice == c.voice, "\(c.name)")
            #expect(verified.video == c.video, "\(c.name)")
            #expect(verified.region == c.region)
            let nbf = try #require(verified.notBefore)
            #expect(verified.issuedAt == nil)
            #expect(verified.expires - nbf == c.ttl)
            #expect(verified.tokenId == "\(Self.key)-\(nbf)")
        }
    }

    @Test func parleyMintedTokensVerifyWithPyJWTAndMatchTwilio() throws {
        let now = WallClock.now()
        var tokens: [JSONValue] = []
        for c in Self.cases {
            let jwt = try AccessTokenBuilder.mint(accountSid: Self.account, apiKeySid: Self.key, apiSecret: Self.secret,
                                                  identity: c.identity, ttl: c.ttl, grants: c.grants, region: c.region,
                                                  now: now)
            tokens.append(.string(jwt))
        }
        let input: JSONObject = ["account": .string(Self.account), "key": .string(Self.key), "secret": .string(Self.secret),
                                 "now": .integer(now), "cases": Self.casesJSON, "tokens": .array(tokens)]
        let output = try Python.run(Python.pyjwtVerify, input: .object(input))
        guard case .array(let results) = output else { Issue.record("bad output: \(output)"); return }
        #expect(results.count == Self.cases.count)
        for (c, result) in zip(Self.cases, results) {
            let r = try #require(result.objectValue)
            #expect(r["error"] == nil, "\(c.name): PyJWT rejected the token: \(r["error"].map { "\($0)" } ?? "")")
            #expect(r["payload_equal"] == .bool(true),
                    "\(c.name): Parley \(String(describing: r["parley"])) vs twilio \(String(describing: r["twilio"]))")
            #expect(r["header_equal"] == .bool(true), "\(c.name): header differs: \(String(describing: r["headers"]))")
        }
    }
}

/// Runs scripts in the project's Python venv.
enum Python {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The package root, found from this file's path (`Tests/InteropTests/…`).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs `script` with `input` as JSON on stdin; returns stdout parsed as JSON.
    static func run(_ script: String, input: JSONValue) throws -> JSONValue {
        let python = packageRoot.appendingPathComponent(".venv/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Failure(description: "Python venv missing: \(python.path) not found. Create it with "
                          + "`python3 -m venv .venv && .venv/bin/pip install twilio pyjwt` at the package root.")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.runWithDefaultSignals()
        stdin.fileHandleForWriting.write(Data(input.serialized()))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "python exited \(process.terminationStatus): \(String(decoding: err, as: UTF8.self))")
        }
        do {
            return try JSONValue.parse(Array(out), maxDepth: 64)
        } catch {
            throw Failure(description: "python printed non-JSON (\(error)): \(String(decoding: out, as: UTF8.self))")
        }
    }

    static let prelude = """
        import json, sys
        from unittest import mock
        import jwt
        from twilio.jwt.access_token import AccessToken
        from twilio.jwt.access_token.grants import VoiceGrant, VideoGrant

        def build(cfg, c):
            t = AccessToken(cfg["account"], cfg["key"], cfg["secret"], identity=c["identity"], ttl=c["ttl"],
                            region=c.get("region"))
            v = c.get("voice")
            if v is not None:
                t.add_grant(VoiceGrant(incoming_allow=v.get("incoming"), outgoing_application_sid=v.get("app"),
                                       outgoing_application_params=v.get("params"), push_credential_sid=v.get("push")))
            if c.get("video") is not None:
                t.add_grant(VideoGrant(room=c["video"].get("room")))
            return t

        cfg = json.load(sys.stdin)

        """

    /// Mints each case with `twilio`, printing token, header and payload.
    static let twilioMint = prelude + """
        out = []
        for c in cfg["cases"]:
            tok = build(cfg, c).to_jwt()
            out.append({"token": tok, "header": jwt.get_unverified_header(tok),
                        "payload": jwt.decode(tok, options={"verify_signature": False})})
        print(json.dumps(out))
        """

    /// Verifies each Parley token with PyJWT and compares it with `twilio`'s token for the same inputs
    /// at the same instant. Parley adds `iat` (as twilio-node does); the comparison leaves it out.
    static let pyjwtVerify = prelude + """
        out = []
        for c, tok in zip(cfg["cases"], cfg["tokens"]):
            r = {}
            try:
                parley = jwt.decode(tok, cfg["secret"], algorithms=["HS256"])
            except Exception as e:
                out.append({"error": repr(e)})
                continue
            with mock.patch("time.time", return_value=cfg["now"]):
                twilio_tok = build(cfg, c).to_jwt()
            twilio = jwt.decode(twilio_tok, options={"verify_signature": False})
            stripped = {k: v for k, v in parley.items() if k != "iat"}
            r["payload_equal"] = stripped == twilio and parley.get("iat") == cfg["now"]
            r["parley"] = parley
            r["twilio"] = twilio
            ph, th = jwt.get_unverified_header(tok), jwt.get_unverified_header(twilio_tok)
            r["header_equal"] = ph == th
            r["headers"] = [ph, th]
            out.append(r)
        print(json.dumps(out))
        """
}
