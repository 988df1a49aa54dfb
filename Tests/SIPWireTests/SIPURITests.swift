import Testing
@testable import SIPWire

/// SIP, SIPS and tel URIs (RFC 3261 §19.1, §25.1; RFC 3966 §3): components, escapes, round trips.
@Suite struct SIPURITests {
    /// RFC 3261 §19.1.3's examples parse and serialize back to the same text.
    @Test func section19_1_3_examplesRoundTrip() throws {
        let examples = [
            "sip:alice@atlanta.com",
            "sip:alice:secretword@atlanta.com;transport=tcp",
            "sips:alice@atlanta.com?subject=project%20x&priority=urgent",
            "sip:+1-212-555-1212:1234@gateway.com;user=phone",
            "sips:1212@gateway.com",
            "sip:alice@192.0.2.4",
            "sip:atlanta.com;method=REGISTER?to=alice%40atlanta.com",
            "sip:alice;day=tuesday@atlanta.com",
        ]
        for text in examples {
            let uri = try SIPURI(parsing: text)
            #expect(uri.description == text)
            #expect(try SIPURI(parsing: uri.description) == uri)
        }
    }

    @Test func components() throws {
        let uri = try SIPURI(parsing: "SIP:alice:secretword@Atlanta.COM:5070;transport=TCP;ttl=15;maddr=239.255.255.1;lr;user=ip;method=INVITE;x-foo=bar?Subject=project%20x&X-Foo=bar")
        #expect(!uri.isSecure)
        #expect(uri.user == "alice" && uri.password == "secretword")
        #expect(uri.host == .hostname("Atlanta.COM") && uri.host.isEquivalent(to: .hostname("atlanta.com")))
        #expect(uri.port == 5070)
        #expect(uri.transport == "tcp" && uri.ttl == 15 && uri.maddr == "239.255.255.1")
        #expect(uri.isLooseRouting && uri.userParameter == "ip" && uri.method == "INVITE")
        #expect(uri.parameters.value("x-foo") == "bar")
        #expect(uri.headers == [SIPParameter("Subject", "project x"), SIPParameter("X-Foo", "bar")])
        #expect(uri.description.hasPrefix("sip:alice:secretword@Atlanta.COM:5070;transport=TCP"))
    }

    /// Values are held decoded and written with escapes wherever the grammar needs them.
    @Test func section19_1_2_escapesRoundTrip() throws {
        var uri = SIPURI(user: "a b@c;d", password: "p:w", host: .hostname("example.com"),
                         parameters: [SIPParameter("n;x", "v=1 2")], headers: [SIPParameter("Route", "<sip:x;lr>"), SIPParameter("Empty", "")])
        let text = uri.description
        #expect(text == "sip:a%20b%40c;d:p%3Aw@example.com;n%3Bx=v%3D1%202?Route=%3Csip:x%3Blr%3E&Empty=")
        #expect(try SIPURI(parsing: text) == uri)
        uri.user = "%00"
        #expect(try SIPURI(parsing: uri.description).user == "%00")
    }

    /// RFC 3261 §19.1.4: equivalent and non-equivalent pairs.
    @Test func section19_1_4_comparison() throws {
        let equal = [
            ("sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp"),
            ("sip:carol@chicago.com", "sip:carol@chicago.com;newparam=5"),
            ("sip:carol@chicago.com;security=on", "sip:carol@chicago.com;newparam=5"),
            ("sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
             "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com"),
            ("sip:alice@atlanta.com?subject=project%20x&priority=urgent", "sip:alice@atlanta.com?priority=urgent&subject=project%20x"),
        ]
        for (a, b) in equal { #expect(try SIPURI(parsing: a).isEquivalent(to: SIPURI(parsing: b)), "\(a) ~ \(b)") }
        let different = [
            ("SIP:ALICE@AtLanTa.CoM;Transport=udp", "sip:alice@AtLanTa.CoM;Transport=UDP"),
            ("sip:bob@biloxi.com", "sip:bob@biloxi.com:5060"),
            ("sip:bob@biloxi.com", "sip:bob@biloxi.com;transport=udp"),
            ("sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp"),
            ("sip:carol@chicago.com", "sip:carol@chicago.com?Subject=next%20meeting"),
            ("sip:bob@phone21.boxesbybob.com", "sip:bob@192.0.2.4"),
            ("sip:carol@chicago.com;security=on", "sip:carol@chicago.com;security=off"),
        ]
        for (a, b) in different { #expect(try !SIPURI(parsing: a).isEquivalent(to: SIPURI(parsing: b)), "\(a) !~ \(b)") }
    }

    @Test func malformedURIsAreRefused() {
        for text in ["sip:", "sip:@example.com", "sip:user@", "sip:user@exa mple.com", "sip:user@example.com:99999",
                     "sip:user@example.com:", "sip:user@[::1", "sip:user@example.com;=x", "sip:user@example.com;p=",
                     "sip:user@example.com?h", "sip:us%2@example.com", "sip:us\"er@example.com", "sip:user@-bad.com",
                     "sip:user@example.1com", "sip:user@1.2.3.256x", "1sip:x", "sip"] {
            #expect(throws: SIPParseError.self, "\(text)") { try SIPAnyURI(parsing: text) }
        }
    }

    @Test func hostForms() throws {
        #expect(try SIPURI(parsing: "sip:a@192.0.2.1").host == .ipv4("192.0.2.1"))
        #expect(throws: SIPParseError.invalidURI) { try SIPURI(parsing: "sip:a@256.0.2.1") }  // neither IPv4 nor a hostname
        #expect(try SIPURI(parsing: "sip:a@example.com.").host == .hostname("example.com."))
        #expect(try SIPURI(parsing: "sip:a@[::1]:5061").port == 5061)
    }

    /// RFC 3966 §3 tel URIs: global and local numbers, parameters, equality of digits.
    @Test func rfc3966TelURIs() throws {
        guard case .tel(let global) = try SIPAnyURI(parsing: "tel:+1-201-555-0123;ext=1234;isub=5") else {
            Issue.record("not a tel URI")
            return
        }
        #expect(global.isGlobal && global.digits == "+12015550123")
        #expect(global.extensionNumber == "1234")
        #expect(global.description == "tel:+1-201-555-0123;ext=1234;isub=5")
        guard case .tel(let local) = try SIPAnyURI(parsing: "tel:7042;phone-context=example.com") else {
            Issue.record("not a tel URI")
            return
        }
        #expect(!local.isGlobal && local.phoneContext == "example.com")
        #expect(try SIPAnyURI(parsing: local.description) == .tel(local))
        for invalid in ["tel:7042", "tel:+", "tel:+1-x", "tel:", "tel:+1;=x", "tel:+1;ext="] {
            #expect(throws: SIPParseError.self, "\(invalid)") { try SIPAnyURI(parsing: invalid) }
        }
    }

    /// A Request-URI with user=phone and a tel-style user (RFC 3261 §19.1.6).
    @Test func section19_1_6_telephoneSubscriberInSIPURI() throws {
        let uri = try SIPURI(parsing: "sip:+1-212-555-1212:1234@gateway.com;user=phone")
        #expect(uri.user == "+1-212-555-1212" && uri.password == "1234")
        #expect(uri.userParameter == "phone")
    }
}
