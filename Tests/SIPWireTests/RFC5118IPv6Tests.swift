import Testing
@testable import SIPWire

/// RFC 5118: IPv6 torture tests (§4.1–§4.10), on messages shaped like the RFC's.
@Suite struct RFC5118IPv6Tests {
    static func message(_ requestLine: String, via: String = "SIP/2.0/UDP [2001:db8::9:1];branch=z9hG4bKas3-111",
                        contact: String = "\"Caller\" <sip:caller@[2001:db8::1]>") -> String {
        "\(requestLine)\r\nTo: sip:user@example.com\r\nFrom: sip:user@example.com;tag=81x2\r\nVia: \(via)\r\n"
            + "Call-ID: SSG9559905523997077@hlau_4100\r\nMax-Forwards: 70\r\nContact: \(contact)\r\n"
            + "CSeq: 98176 \(requestLine.prefix { $0 != " " })\r\nContent-Length: 0\r\n\r\n"
    }

    @Test func section4_1_validIPv6Reference() throws {
        let message = try SIPMessage(parsing: Self.message("REGISTER sip:[2001:db8::10] SIP/2.0"))
        #expect(message.request?.uri.sipURI?.host == .ipv6("2001:db8::10"))
        #expect(message.request?.uri.sipURI?.port == nil)
        #expect(message.via?.host == .ipv6("2001:db8::9:1"))
        #expect(message.contacts.first?.address?.uri.sipURI?.host == .ipv6("2001:db8::1"))
        #expect(message.contacts.first?.address?.uri.sipURI?.host.address == "2001:db8::1")
        #expect(message.request?.uri.description == "sip:[2001:db8::10]")
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section4_2_invalidIPv6ReferenceWithoutBrackets() throws {
        #expect(throws: SIPParseError.invalidRequestURI) {
            try SIPMessage(parsing: Self.message("REGISTER sip:2001:db8::10 SIP/2.0"))
        }
        #expect(throws: SIPParseError.invalidURI) { try SIPURI(parsing: "sip:user@2001:db8::10") }
    }

    @Test func section4_3_portAmbiguousInURI() throws {
        let uri = try #require(try SIPMessage(parsing: Self.message("REGISTER sip:[2001:db8::10:5070] SIP/2.0")).request?.uri.sipURI)
        #expect(uri.host == .ipv6("2001:db8::10:5070"))
        #expect(uri.port == nil)
    }

    @Test func section4_4_portUnambiguousInURI() throws {
        let uri = try #require(try SIPMessage(parsing: Self.message("REGISTER sip:[2001:db8::10]:5070 SIP/2.0")).request?.uri.sipURI)
        #expect(uri.host == .ipv6("2001:db8::10"))
        #expect(uri.port == 5070)
        #expect(uri.description == "sip:[2001:db8::10]:5070")
    }

    /// `received` with and without the brackets; both read as the same address.
    @Test func section4_5_ipv6ReferenceDelimitersInViaReceived() throws {
        let bracketed = try SIPMessage(parsing: Self.message(
            "BYE sip:[2001:db8::10] SIP/2.0", via: "SIP/2.0/UDP [2001:db8::9:1];received=[2001:db8::9:255];branch=z9hG4bKas3-111"))
        let bare = try SIPMessage(parsing: Self.message(
            "OPTIONS sip:[2001:db8::10] SIP/2.0", via: "SIP/2.0/UDP [2001:db8::9:1];received=2001:db8::9:255;branch=z9hG4bKas3"))
        #expect(bracketed.via?.received == .ipv6("2001:db8::9:255"))
        #expect(bare.via?.received == .ipv6("2001:db8::9:255"))
        #expect(bare.via?.branch == "z9hG4bKas3")
        // Written without brackets, as RFC 3261's grammar has it.
        var via = SIPVia(transport: "UDP", host: .ipv6("2001:db8::9:1"), branch: "z9hG4bKx")
        via.received = .ipv6("2001:db8::9:255")
        via.rport = .port(5070)
        #expect(via.headerValue == "SIP/2.0/UDP [2001:db8::9:1];branch=z9hG4bKx;received=2001:db8::9:255;rport=5070")
        #expect(try SIPVia(parsing: via.headerValue, header: "Via") == via)
    }

    @Test func section4_6_ipv6InRequestURIAndTo() throws {
        let text = "INVITE sip:user@[2001:db8::10] SIP/2.0\r\nTo: sip:user@[2001:db8::10]\r\nFrom: sip:user@example.com;tag=81x2\r\n"
            + "Via: SIP/2.0/UDP [2001:db8::20];branch=z9hG4bKas3-111\r\nCall-ID: SSG9559905523997077@hlau_4100\r\n"
            + "Contact: \"Caller\" <sip:caller@[2001:db8::20]>\r\nCSeq: 8612 INVITE\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
        let message = try SIPMessage(parsing: text)
        #expect(message.to?.uri.sipURI?.host == .ipv6("2001:db8::10"))
        #expect(message.to?.uri.sipURI?.user == "user")
    }

    @Test func section4_7_multipleAddressFamiliesInVia() throws {
        let message = try SIPMessage(parsing: Self.message(
            "REGISTER sip:[2001:db8::10] SIP/2.0",
            via: "SIP/2.0/UDP [2001:db8::9:1];branch=z9hG4bKas3-111, SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKjhja8781hjuaij65144, SIP/2.0/TCP [2001:db8::9:255];branch=z9hG4bK451jj;received=192.0.2.200"))
        #expect(message.vias.map(\.host) == [.ipv6("2001:db8::9:1"), .ipv4("192.0.2.1"), .ipv6("2001:db8::9:255")])
        #expect(message.vias.last?.received == .ipv4("192.0.2.200"))
    }

    @Test func section4_9_ipv4MappedIPv6() throws {
        let message = try SIPMessage(parsing: Self.message(
            "INVITE sip:user@example.com SIP/2.0", via: "SIP/2.0/UDP [::ffff:192.0.2.10]:19823;branch=z9hG4bKbh19",
            contact: "\"T. desk phone\" <sip:ted@[::ffff:192.0.2.2]>"))
        #expect(message.via?.host == .ipv6("::ffff:192.0.2.10"))
        #expect(message.via?.port == 19823)
        #expect(message.contacts.first?.address?.uri.sipURI?.host == .ipv6("::ffff:192.0.2.2"))
        #expect(message.contacts.first?.address?.displayName == "T. desk phone")
        #expect(SIPHost.ipv6("::ffff:192.0.2.2").isEquivalent(to: .ipv6("0:0:0:0:0:ffff:c000:0202")))
    }

    /// The ABNF bug: three colons before a dotted quad is not an address; two is.
    @Test func section4_10_ipv6ReferenceBugInRFC3261ABNF() throws {
        #expect(throws: SIPParseError.invalidRequestURI) {
            try SIPMessage(parsing: Self.message("REGISTER sip:user@[2001:db8:::192.0.2.1] SIP/2.0"))
        }
        let uri = try #require(try SIPMessage(parsing: Self.message("REGISTER sip:user@[2001:db8::192.0.2.1] SIP/2.0")).request?.uri.sipURI)
        #expect(uri.host == .ipv6("2001:db8::192.0.2.1"))
        #expect(uri.host.isEquivalent(to: .ipv6("2001:db8:0:0:0:0:c000:201")))
    }

    @Test func ipv6GrammarEdges() {
        for valid in ["::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "::ffff:1.2.3.4", "fe80::1:2"] {
            #expect(SIPHost.isIPv6(valid), "\(valid)")
        }
        for invalid in [":", ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "::1.2.3", "1:2:3:4:5:6:7:1.2.3.4", "g::1", ":1::", "1::1:"] {
            #expect(!SIPHost.isIPv6(invalid), "\(invalid)")
        }
    }
}
