import Testing
@testable import SIPWire

/// Header fields (RFC 3261 §7.3, §20, §25.1) and their typed values.
@Suite struct SIPHeaderTests {
    static func message(_ extra: String, method: String = "INVITE") throws -> SIPMessage {
        try SIPMessage(parsing: "\(method) sip:bob@biloxi.com SIP/2.0\r\nVia: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bK776asdhds\r\n"
            + "To: <sip:bob@biloxi.com>\r\nFrom: <sip:alice@atlanta.com>;tag=1\r\nCall-ID: c1\r\nCSeq: 1 \(method)\r\n\(extra)Content-Length: 0\r\n\r\n")
    }

    /// RFC 3261 §7.3.3 and the IANA registry's compact forms; names are case-insensitive.
    @Test func section7_3_3_compactAndCaseInsensitiveNames() {
        let pairs = [("i", "Call-ID"), ("m", "Contact"), ("e", "Content-Encoding"), ("l", "Content-Length"), ("c", "Content-Type"),
                     ("f", "From"), ("s", "Subject"), ("k", "Supported"), ("t", "To"), ("v", "Via"), ("o", "Event"),
                     ("r", "Refer-To"), ("b", "Referred-By"), ("u", "Allow-Events"), ("x", "Session-Expires"), ("V", "Via"),
                     ("cAlL-iD", "Call-ID"), ("www-authenticate", "WWW-Authenticate"), ("X-Custom", "X-Custom")]
        for (name, canonical) in pairs {
            #expect(SIPHeaderName.canonical(name) == canonical)
            #expect(SIPHeaderName.key(name) == SIPHeaderName.key(canonical))
        }
    }

    /// Comma lists split outside quotes and brackets; auth headers, Date and unknown headers never.
    @Test func section7_3_1_commaLists() throws {
        let message = try Self.message("Contact: \"Doe, John\" <sip:j,k@h;x=1>;q=0.5, <sip:k@h>\r\nContact: sip:l@h\r\n"
            + "Date: Sat, 13 Nov 2010 23:29:00 GMT\r\nX-List: a, b\r\nRoute: <sip:p1@h;lr>,<sip:p2@h;lr>\r\n"
            + "Allow: INVITE, ACK,BYE , CANCEL\r\nRequire: timer\r\nSupported: 100rel, timer, outbound\r\n")
        let contacts = message.contacts.compactMap(\.address)
        #expect(contacts.map(\.displayName) == ["Doe, John", nil, nil])
        #expect(contacts.first?.uri.sipURI?.user == "j,k" && contacts.first?.uri.sipURI?.parameters == [SIPParameter("x", "1")])
        #expect(contacts.first?.q == 0.5)
        #expect(message.headers.elements("Date") == ["Sat, 13 Nov 2010 23:29:00 GMT"])
        #expect(message.headers.elements("X-List") == ["a, b"])
        #expect(message.routes.compactMap { $0.uri.sipURI?.user } == ["p1", "p2"])
        #expect(message.allow == [.invite, .ack, .bye, .cancel])
        #expect(message.require == ["timer"] && message.supported == ["100rel", "timer", "outbound"])
    }

    /// RFC 3261 §20.10: in an addr-spec the parameters are the header's; display names as tokens.
    @Test func section20_10_nameAddrAndAddrSpec() throws {
        let bare = try SIPNameAddress(parsing: "sip:alice@atlanta.com;tag=88sja8x", header: "From")
        #expect(bare.tag == "88sja8x" && bare.uri.sipURI?.parameters == [])
        let named = try SIPNameAddress(parsing: "Anonymous   Caller <sip:c8oqz84zk7z@privacy.org>;tag=hyh8", header: "From")
        #expect(named.displayName == "Anonymous Caller" && named.tag == "hyh8")
        let quoted = try SIPNameAddress(parsing: #""A \"B\" C" <sips:a@b;transport=tls>;tag=z"#, header: "To")
        #expect(quoted.displayName == #"A "B" C"# && quoted.uri.sipURI?.transport == "tls")
        #expect(quoted.headerValue == #""A \"B\" C" <sips:a@b;transport=tls>;tag=z"#)
        #expect(try SIPNameAddress(parsing: quoted.headerValue, header: "To") == quoted)
        #expect(try SIPNameAddress(parsing: bare.headerValue, header: "From") == bare)
        let tel = try SIPNameAddress(parsing: "<tel:+12015550123>;tag=5", header: "From")
        #expect(tel.uri.scheme == "tel")
        for invalid in ["", "<sip:a@b", "\"unterminated <sip:a@b>", "sip:a@b junk", "<sip:a@b>;", "<sip:a@b>;tag=\"x", "a@b"] {
            #expect(throws: SIPParseError.invalidHeader(name: "To"), "\(invalid)") { try SIPNameAddress(parsing: invalid, header: "To") }
        }
    }

    /// Contact forms for REGISTER: `*`, expires, q, RFC 5626's +sip.instance and reg-id.
    @Test func contactParameters() throws {
        let message = try Self.message("Contact: <sip:alice@192.0.2.4:5070;transport=tcp;ob>;expires=600;q=0.7;reg-id=1;"
            + "+sip.instance=\"<urn:uuid:00000000-0000-1000-8000-000A95A0E128>\"\r\n", method: "REGISTER")
        let contact = try #require(message.contacts.first?.address)
        #expect(contact.expires == 600 && contact.q == 0.7 && contact.regID == 1)
        #expect(contact.instanceID == "urn:uuid:00000000-0000-1000-8000-000A95A0E128")
        #expect(contact.uri.sipURI?.parameters.contains("ob") == true)
        let wildcard = try Self.message("Contact: *\r\nExpires: 0\r\n", method: "REGISTER")
        #expect(wildcard.contacts == [.wildcard] && wildcard.expires == 0)
        #expect(SIPNameAddress.qvalue("1.000") == 1 && SIPNameAddress.qvalue("0.125") == 0.125)
        #expect(SIPNameAddress.qvalue("1.5") == nil && SIPNameAddress.qvalue("0.1234") == nil && SIPNameAddress.qvalue("2") == nil)
    }

    /// RFC 3261 §20.42 and RFC 3581: sent-protocol, sent-by, branch, received, rport.
    @Test func viaAndRFC3581Rport() throws {
        let requested = try SIPVia(parsing: "SIP/2.0/UDP 10.0.0.1:5062;rport;branch=z9hG4bKx1", header: "Via")
        #expect(requested.rport == .requested && requested.port == 5062 && requested.hasRFC3261Branch)
        var filled = requested
        filled.received = .ipv4("192.0.2.33")
        filled.rport = .port(61234)
        #expect(filled.headerValue == "SIP/2.0/UDP 10.0.0.1:5062;rport=61234;branch=z9hG4bKx1;received=192.0.2.33")
        #expect(try SIPVia(parsing: filled.headerValue, header: "Via") == filled)
        let spaced = try SIPVia(parsing: "SIP / 2.0 / TCP  host.example.com : 5060 ; branch = z9hG4bKabc ; ttl=16 ; maddr=224.2.0.1", header: "Via")
        #expect(spaced.transport == "TCP" && spaced.port == 5060 && spaced.ttl == 16 && spaced.maddr == "224.2.0.1")
        for invalid in ["SIP/2.0 host", "SIP/2.0/UDP", "SIP/2.0/UDP host:99999", "SIP/2.0/UDP host;branch", "SIP/2.0/UDP host;received=x.y",
                        "SIP/2.0/UDP host;ttl=300", "SIP/2.0/UDP host;rport=x", "SIP/2.0/UDP [::1;branch=z"] {
            #expect(throws: SIPParseError.invalidHeader(name: "Via"), "\(invalid)") { try SIPVia(parsing: invalid, header: "Via") }
        }
    }

    @Test func cseqMaxForwardsAndNumbers() throws {
        #expect(try SIPCSeq(parsing: "  4711   INVITE ", header: "CSeq") == SIPCSeq(4711, .invite))
        for invalid in ["INVITE", "1", "1INVITE", "2147483648 INVITE", "1 INVITE x", "-1 INVITE"] {
            #expect(throws: SIPParseError.invalidHeader(name: "CSeq"), "\(invalid)") { try SIPCSeq(parsing: invalid, header: "CSeq") }
        }
        #expect(throws: SIPParseError.invalidHeader(name: "Max-Forwards")) {
            try SIPNumberHeader<UInt8>(parsing: "256", header: "Max-Forwards")
        }
    }

    /// RFC 4028 Session-Expires/Min-SE; RFC 3262 RSeq/RAck; RFC 6665 Event; RFC 3326 Reason.
    @Test func extensionHeaders() throws {
        let message = try Self.message("x: 1800;refresher=uac\r\nMin-SE: 90\r\nRSeq: 988789\r\nRAck: 776656 1 INVITE\r\n"
            + "o: presence;id=7\r\nSubscription-State: active;expires=60\r\n"
            + "Reason: SIP;cause=580;text=\"Precondition Failure\", Q.850;cause=16\r\nX-PH-Room: blue\r\nx-lower: 1\r\n")
        #expect(message.sessionExpires == SIPSessionExpires(seconds: 1800, refresher: .uac))
        #expect(message.minSE == 90)
        #expect(message.rseq == 988789)
        #expect(message.rack == SIPRAck(rseq: 776656, cseq: 1, method: .invite))
        #expect(message.event?.package == "presence" && message.event?.id == "7")
        #expect(message.subscriptionState?.state == "active" && message.subscriptionState?.expires == 60)
        #expect(message.reasons.map(\.cause) == [580, 16])
        #expect(message.reasons.first?.text == "Precondition Failure")
        #expect(message.customHeaders.map(\.name) == ["X-PH-Room", "x-lower"])
        #expect(throws: SIPParseError.invalidHeader(name: "Session-Expires")) {
            try SIPSessionExpires(parsing: "90;refresher=both", header: "Session-Expires")
        }
        let reason = SIPReason(protocolName: "SIP", cause: 200, text: "Call completed elsewhere")
        #expect(reason.headerValue == #"SIP;cause=200;text="Call completed elsewhere""#)
        #expect(try SIPReason(parsing: reason.headerValue, header: "Reason") == reason)
    }

    /// Editing: set keeps the first position, prepend a new topmost Via, remove the first element.
    @Test func editingHeaders() throws {
        var headers: SIPHeaders = ["Via": "SIP/2.0/UDP a;branch=z9hG4bK1, SIP/2.0/UDP b;branch=z9hG4bK2", "To": "<sip:x@y>"]
        headers.add("v", "SIP/2.0/UDP c;branch=z9hG4bK3")
        headers.insertFirst("Via", "SIP/2.0/TCP proxy;branch=z9hG4bKp")
        #expect(try headers.all("Via", as: SIPVia.self).map(\.branch) == ["z9hG4bKp", "z9hG4bK1", "z9hG4bK2", "z9hG4bK3"])
        headers.removeFirstElement("Via")
        headers.removeFirstElement("Via")
        #expect(headers.elements("Via").count == 2)
        headers["to"] = "<sip:z@y>"
        #expect(headers.fields.map(\.name) == ["Via", "To", "v"])
        headers["VIA"] = nil
        #expect(headers.fields.map(\.name) == ["To"])
    }

    @Test func contentTypeAndCallID() throws {
        let type = try SIPMediaType(parsing: "Application/SDP ; charset=utf-8", header: "Content-Type")
        #expect(type.matches(.sdp) && type.parameters.value("charset") == "utf-8")
        #expect(throws: SIPParseError.invalidHeader(name: "Content-Type")) { try SIPMediaType(parsing: "application", header: "Content-Type") }
        #expect(throws: SIPParseError.invalidHeader(name: "Call-ID")) { try SIPCallID(parsing: "a b", header: "Call-ID") }
        #expect(throws: SIPParseError.invalidHeader(name: "Call-ID")) { try SIPCallID(parsing: "a@", header: "Call-ID") }
    }
}
