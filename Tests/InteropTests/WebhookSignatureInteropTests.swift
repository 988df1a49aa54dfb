import JSONWire
import ParleyCrypto
import ParleyTestSupport
import Testing

/// Parley's `X-Twilio-Signature` against the real `twilio` library's `RequestValidator`: for each
/// case, Python must compute the same signature string, accept Parley's signature, and Parley must
/// accept Python's. Needs the project venv (see `Python` in TokenInteropTests.swift).
@Suite(.tags(.interop)) struct WebhookSignatureInteropTests {
    struct Case {
        let name: String
        let token: String
        /// The URL the signer requests (and signs).
        let signURL: String
        /// The URL the receiver sees (the port may differ).
        let validateURL: String
        let parameters: [(String, String)]
        /// A JSON body; then `signURL` carries `bodySHA256` and `parameters` is empty.
        let body: String?

        init(_ name: String, token: String = "0123456789abcdef0123456789abcdef", url: String, validateURL: String? = nil,
             parameters: [(String, String)] = [], body: String? = nil) {
            self.name = name
            self.token = token
            self.signURL = body.map { WebhookSignature.url(url, addingBodySHA256Of: Array($0.utf8)) } ?? url
            self.validateURL = body.map { WebhookSignature.url(validateURL ?? url, addingBodySHA256Of: Array($0.utf8)) }
                ?? validateURL ?? url
            self.parameters = parameters
            self.body = body
        }

        var json: JSONValue {
            var o: JSONObject = ["name": .string(name), "token": .string(token), "sign_url": .string(signURL),
                                 "validate_url": .string(validateURL),
                                 "params": .array(parameters.map { .array([.string($0.0), .string($0.1)]) })]
            if let body { o["body"] = .string(body) }
            return .object(o)
        }
    }

    static let cases: [Case] = [
        Case("twilio-docs", token: "12345", url: "https://mycompany.com/myapp.php?foo=1&bar=2", parameters: [
            ("CallSid", "CA1234567890ABCDE"), ("Caller", "+12349013030"), ("Digits", "1234"), ("From", "+12349013030"),
            ("To", "+18005551212"),
        ]),
        Case("voice-webhook", url: "https://app.example.com/voice?app=1", parameters: [
            ("AccountSid", "AC" + String(repeating: "0", count: 32)), ("ApplicationSid", "AP" + String(repeating: "a", count: 32)),
            ("CallSid", "CA" + String(repeating: "1", count: 32)), ("From", "client:alice"), ("To", "bob"),
            ("Direction", "inbound"), ("CallStatus", "ringing"), ("ApiVersion", "2010-04-01"), ("Caller", "client:alice"),
            ("Called", ""), ("mode", "conference & more = 100%+"),
        ]),
        Case("unicode", url: "https://example.com/caf%C3%A9/hook?q=%E2%82%AC", parameters: [
            ("é", "précomposé"), ("e\u{301}", "decomposed"), ("名前", "値 😀"), ("z", "\u{10FFFF}"), ("Z", "tab\there\r\nnl"),
        ]),
        Case("repeated-keys", url: "https://example.com/status", parameters: [
            ("To", "b"), ("To", "a"), ("From", "x"), ("To", "b"), ("Empty", ""), ("Empty", ""),
        ]),
        Case("no-parameters", url: "https://example.com/only/url?with=query&and=more"),
        Case("https-default-port-added", url: "https://example.com:443/hook?x=1", validateURL: "https://example.com/hook?x=1",
             parameters: [("CallStatus", "completed")]),
        Case("http-default-port-removed", url: "http://example.com/hook", validateURL: "http://example.com:80/hook",
             parameters: [("CallStatus", "answered")]),
        Case("custom-port", url: "http://127.0.0.1:8080/twiml?step=2", parameters: [("Digits", "1234#")]),
        Case("json-body", url: "https://example.com/json?x=1", body: #"{"CallSid": "CA1", "name": "caf\u00e9", "n": 1}"#),
        Case("json-body-port", url: "https://example.com:443/json", validateURL: "https://example.com/json",
             body: #"{"event": "completed"}"#),
    ]

    static let script = """
        import json, sys
        from twilio.request_validator import RequestValidator

        class Multi:
            def __init__(self, pairs): self.pairs = [tuple(p) for p in pairs]
            def __iter__(self): return iter([k for k, _ in self.pairs])
            def __bool__(self): return bool(self.pairs)
            def getall(self, name): return [v for k, v in self.pairs if k == name]

        cfg = json.load(sys.stdin)
        out = []
        for c in cfg["cases"]:
            v = RequestValidator(c["token"])
            params = Multi(c["params"])
            computed = v.compute_signature(c["sign_url"], params)
            payload = c["body"] if "body" in c else params
            tampered = ("B" if c["parley"][0] == "A" else "A") + c["parley"][1:]
            out.append({
                "computed": computed,
                "accepts_parley": v.validate(c["validate_url"], payload, c["parley"]),
                "rejects_tampered": not v.validate(c["validate_url"], payload, tampered),
            })
        print(json.dumps(out))
        """

    @Test func twilioRequestValidatorAgreesWithParley() throws {
        var inputs: [JSONValue] = []
        for c in Self.cases {
            guard case .object(var o) = c.json else { continue }
            o["parley"] = .string(WebhookSignature.compute(url: c.signURL, parameters: c.parameters, authToken: c.token))
            inputs.append(.object(o))
        }
        let output = try Python.run(Self.script, input: .object(["cases": .array(inputs)]))
        guard case .array(let results) = output else { Issue.record("bad output: \(output)"); return }
        #expect(results.count == Self.cases.count)
        for (c, result) in zip(Self.cases, results) {
            let r = try #require(result.objectValue)
            let ours = WebhookSignature.compute(url: c.signURL, parameters: c.parameters, authToken: c.token)
            let theirs = try #require(r["computed"]?.stringValue)
            #expect(theirs == ours, "\(c.name): twilio computed \(theirs), Parley \(ours)")
            #expect(r["accepts_parley"] == .bool(true), "\(c.name): RequestValidator rejected Parley's signature")
            #expect(r["rejects_tampered"] == .bool(true), "\(c.name): RequestValidator accepted a tampered signature")
            // And Parley accepts what twilio signs, at the URL the receiver sees.
            if let body = c.body {
                #expect(WebhookSignature.validate(signature: theirs, url: c.validateURL, body: Array(body.utf8), authToken: c.token),
                        "\(c.name)")
            } else {
                #expect(WebhookSignature.validate(signature: theirs, url: c.validateURL, parameters: c.parameters,
                                                  authToken: c.token), "\(c.name)")
            }
        }
    }
}
