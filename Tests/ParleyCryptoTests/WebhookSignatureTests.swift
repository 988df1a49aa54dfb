import Testing
@testable import ParleyCrypto

@Suite struct WebhookSignatureTests {
    static let documentedParameters = [
        ("CallSid", "CA1234567890ABCDE"), ("Caller", "+12349013030"), ("Digits", "1234"), ("From", "+12349013030"),
        ("To", "+18005551212"),
    ]

    /// The example from Twilio's "Validating requests" documentation.
    @Test func twilioDocumentedExample() {
        let url = "https://mycompany.com/myapp.php?foo=1&bar=2"
        #expect(WebhookSignature.compute(url: url, parameters: Self.documentedParameters, authToken: "12345")
                == "0/KCTR6DLpKmkAf8muzZqo1nDgQ=")
        // Order of the input does not matter; the names are sorted.
        #expect(WebhookSignature.validate(signature: "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url: url,
                                          parameters: Self.documentedParameters.reversed(), authToken: "12345"))
        #expect(!WebhookSignature.validate(signature: "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url: url,
                                           parameters: Self.documentedParameters + [("Extra", "1")], authToken: "12345"))
        #expect(!WebhookSignature.validate(signature: "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url: url,
                                           parameters: Self.documentedParameters, authToken: "12346"))
        #expect(!WebhookSignature.validate(signature: "", url: url, parameters: Self.documentedParameters, authToken: "12345"))
    }

    @Test func jsonBodiesSignTheURLWithBodySHA256() {
        let body = Array(#"{"property": "value", "boolean": true}"#.utf8)
        #expect(WebhookSignature.bodySHA256(body) == "0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620")
        #expect(WebhookSignature.bodySHA256([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let url = WebhookSignature.url("https://mycompany.com/myapp.php?foo=1&bar=2", addingBodySHA256Of: body)
        #expect(url == "https://mycompany.com/myapp.php?foo=1&bar=2&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620")
        let signature = WebhookSignature.compute(url: url, parameters: [], authToken: "12345")
        #expect(signature == "a9nBmqA0ju/hNViExpshrM61xv4=")
        #expect(WebhookSignature.validate(signature: signature, url: url, body: body, authToken: "12345"))
        #expect(!WebhookSignature.validate(signature: signature, url: url, body: body + [0x20], authToken: "12345"))
        #expect(!WebhookSignature.validate(signature: signature, url: "https://mycompany.com/myapp.php?foo=1&bar=2", body: body,
                                           authToken: "12345"))
        #expect(WebhookSignature.url("https://h/p#frag", addingBodySHA256Of: [UInt8]())
                == "https://h/p?bodySHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855#frag")
    }

    @Test func defaultPortIsAcceptedWithAndWithout() {
        let token = "12345"
        #expect(WebhookSignature.compute(url: "https://example.com:8443/x", parameters: [], authToken: token)
                == "YkSUyR1dtekQbgKzzMsGuYEtP+o=")
        let withoutPort = WebhookSignature.compute(url: "https://example.com/x", parameters: [], authToken: token)
        let withPort = WebhookSignature.compute(url: "https://example.com:443/x", parameters: [], authToken: token)
        #expect(withoutPort == "uun0/3452neA+UJKgVpv8ZnK/DM=" && withPort == "v40UUQ1PM6NSGwhAjuqIlb3vRwM=")
        #expect(WebhookSignature.validate(signature: withPort, url: "https://example.com/x", parameters: [], authToken: token))
        #expect(WebhookSignature.validate(signature: withoutPort, url: "https://example.com:443/x", parameters: [], authToken: token))
        let custom = WebhookSignature.compute(url: "https://example.com:8443/x", parameters: [], authToken: token)
        #expect(WebhookSignature.validate(signature: custom, url: "https://example.com:8443/x", parameters: [], authToken: token))
        #expect(!WebhookSignature.validate(signature: custom, url: "https://example.com/x", parameters: [], authToken: token))
        #expect(WebhookSignature.urlVariants("http://u:p@[::1]:8080/a?b") == ["http://u:p@[::1]:8080/a?b", "http://u:p@[::1]/a?b"])
        #expect(WebhookSignature.urlVariants("http://[::1]/a") == ["http://[::1]/a", "http://[::1]:80/a"])
    }

    @Test func repeatedNamesSignEachDistinctValueSortedByCodePoint() {
        let url = "https://h/p"
        let token = "t"
        func manual(_ text: String) -> String {
            WebhookSignature.standardBase64(HMAC.sha1(key: Array(token.utf8), message: Array(text.utf8)))
        }
        #expect(WebhookSignature.compute(url: url, parameters: [("a", "2"), ("b", "x"), ("a", "1"), ("a", "2")], authToken: token)
                == manual(url + "a1a2bx"))
        // Code-point order, not Swift's canonical-equivalence order: "e\u{301}" < "z" < "é", and the
        // two spellings of é are distinct names.
        let parameters = [("é", "1"), ("z", "2"), ("e\u{301}", "3")]
        #expect(WebhookSignature.compute(url: url, parameters: parameters, authToken: token)
                == manual(url + "e\u{301}3" + "z2" + "é1"))
    }
}
