import Testing
@testable import SIPWire

/// RFC 4475 §3.1.1: valid messages a parser must accept, however tortuous.
@Suite struct RFC4475ValidMessageTests {
    @Test func section3_1_1_1_shortTortuousInvite() throws {
        let message = try SIPFixtures.valid("wsinv")
        let request = try #require(message.request)
        #expect(request.method == .invite)
        #expect(request.uri.sipURI?.parameters == [SIPParameter("unknownparam")])
        #expect(request.to?.uri.sipURI?.user == "vivekg")
        #expect(request.to?.tag == "1918181833n")
        #expect(request.from?.displayName == #"J Rosenberg \""#)
        #expect(request.from?.tag == "98asjd8")
        #expect(request.maxForwards == 68)
        #expect(request.callID == "wsinv.ndaksdj@192.0.2.1")
        #expect(request.cseq == SIPCSeq(9, .invite))
        #expect(request.contentLength == 150 && request.body.count == 150)
        #expect(request.vias.map(\.transport) == ["UDP", "TCP", "UDP"])
        #expect(request.vias.map(\.host) == [.ipv4("192.0.2.2"), .hostname("spindle.example.com"), .ipv4("192.168.255.111")])
        #expect(request.vias.map(\.branch) == ["390skdjuw", "z9hG4bK9ikj8", "z9hG4bK30239"])
        #expect(request.header("s") == "" && request.header("Subject") == "")
        #expect(request.header("NewFangledHeader") == "newfangled value continued newfangled value")
        #expect(request.header("UnknownHeaderWithUnusualValue") == ";;,,;;,;")
        #expect(request.routes.first?.uri.sipURI?.isLooseRouting == true)
        let contact = try #require(request.contacts.first?.address)
        #expect(contact.displayName == #"Quoted string """#)
        #expect(contact.q == 0.33)
        #expect(contact.parameters.value("newparam") == "newvalue")
        #expect(contact.parameters.contains("secondparam"))
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_2_wideRangeOfValidCharacters() throws {
        let message = try SIPFixtures.valid("intmeth")
        let request = try #require(message.request)
        #expect(request.method == .extension("!interesting-Method0123456789_*+`.%indeed'~"))
        let uri = try #require(request.uri.sipURI)
        #expect(uri.user == "1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*")
        #expect(uri.password == "&it+has=1,weird!*pas$wo~d_too.(doesn't-it)")
        #expect(request.to?.displayName == "BEL:\u{07} NUL:\u{00} DEL:\u{7F}")
        #expect(request.from?.displayName == "token1~` token2'+_ token3*%!.-")
        #expect(request.from?.tag == "_token~1'+`*%!-.")
        #expect(request.callID == #"intmeth.word%ZK-!.*_+'@word`~)(><:\/"][?}{"#)
        #expect(request.via?.branch == "z9hG4bK-.!%66*_+`'~")
        #expect(request.maxForwards == 255)
        #expect(request.header("extensionHeader-!.%*+_`'~") == "\u{FEFF}大停電")
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_3_validEscaping() throws {
        let message = try SIPFixtures.valid("esc01")
        let request = try #require(message.request)
        #expect(request.uri.sipURI?.user == "sips:user@example.com")
        #expect(request.uri.sipURI?.host == .hostname("example.net"))
        #expect(request.to?.uri.sipURI?.user == "user")
        #expect(request.from?.uri.sipURI?.user == "I have spaces")
        #expect(request.callID == "esc01.239409asdfakjkn23onasd0-3234")
        #expect(request.contentType?.matches(.sdp) == true)
        let contact = try #require(request.contacts.first?.address?.uri.sipURI)
        #expect(contact.user == "caller")
        #expect(contact.parameters == [SIPParameter("lr"), SIPParameter("name", "value%41")])
        #expect(contact.isLooseRouting)
        // Equivalent to the unescaped spelling (RFC 3261 §19.1.4).
        #expect(contact.isEquivalent(to: try SIPURI(parsing: "sip:caller@host5.example.net;lr;name=value%2541")))
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_4_escapedNullsInURIs() throws {
        let message = try SIPFixtures.valid("escnull")
        #expect(message.to?.uri.sipURI?.user == "null-\u{0}-null")
        #expect(message.contacts.compactMap { $0.address?.uri.sipURI?.user } == ["\u{0}", "\u{0}\u{0}"])
        #expect(message.contentLength == 0)
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_5_percentThatIsNotAnEscape() throws {
        let message = try SIPFixtures.valid("esc02")
        let request = try #require(message.request)
        #expect(request.method == .extension("RE%47IST%45R"))
        #expect(request.to?.displayName == "%Z%45")
        #expect(request.via?.branch == "z9hG4bK209%fzsnel234")
        // `C%6Fntact` is another header, not Contact.
        #expect(request.contacts.count == 2)
        #expect(request.header("C%6Fntact") == "<sip:alias2@host2.example.com>")
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_6_noLWSBetweenDisplayNameAndBracket() throws {
        let message = try SIPFixtures.valid("lwsdisp")
        #expect(message.from?.displayName == "caller")
        #expect(message.from?.uri.sipURI?.user == "caller")
        #expect(message.from?.tag == "323")
    }

    @Test func section3_1_1_7_longValues() throws {
        let message = try SIPFixtures.valid("longreq")
        let request = try #require(message.request)
        #expect(request.to?.displayName?.hasPrefix("I have a user name of extremeextreme") == true)
        #expect(request.to?.uri.sipURI?.port == 6000)
        #expect(request.to?.uri.sipURI?.parameters.count == 3)
        #expect(request.vias.count == 34)
        #expect(request.from?.tag?.utf8.count ?? 0 > 100)
        #expect(request.callID?.hasPrefix("longreq.one") == true)
        #expect(request.body.count == request.contentLength)
        try SIPFixtures.expectRoundTrip(message)
    }

    /// A datagram holding two requests: only the first counts, the rest is discarded.
    @Test func section3_1_1_8_extraTrailingOctetsInDatagram() throws {
        let message = try SIPFixtures.valid("dblreq")
        #expect(message.request?.method == .register)
        #expect(message.body.isEmpty)
        #expect(message.callID == "dblreq.0ha0isndaksdj99sdfafnl3lk233412")
    }

    @Test func section3_1_1_9_semicolonInURIUser() throws {
        let message = try SIPFixtures.valid("semiuri")
        let uri = try #require(message.request?.uri.sipURI)
        #expect(uri.user == "user;par=u@example.net")
        #expect(uri.host == .hostname("example.com"))
        #expect(uri.parameters.isEmpty)
        #expect(message.headers.elements("Accept").count == 6)
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_10_variedAndUnknownTransports() throws {
        let message = try SIPFixtures.valid("transports")
        #expect(message.vias.map(\.transport) == ["UDP", "SCTP", "TLS", "UNKNOWN", "TCP"])
        #expect(message.vias.map(\.sentByPort) == [5060, 5060, 5061, 5060, 5060])
        #expect(message.callID == "transports.kijh4akdnaqjkwendsasfdj")
    }

    @Test func section3_1_1_11_multipartMIME() throws {
        let message = try SIPFixtures.valid("mpart01")
        let type = try #require(message.contentType)
        #expect(type.type == "multipart" && type.subtype == "mixed")
        #expect(type.parameters.value("boundary") == "7a9cbec02ceef655")
        #expect(message.body.count == message.contentLength)
        #expect(message.via?.rport == .requested)
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_12_unusualReasonPhrase() throws {
        let message = try SIPFixtures.valid("unreason")
        let response = try #require(message.response)
        #expect(response.statusCode == 200)
        #expect(response.reasonPhrase.hasPrefix("= 2**3 * 5**2 но"))
        #expect(response.body.count == 154)
        try SIPFixtures.expectRoundTrip(message)
    }

    @Test func section3_1_1_13_emptyReasonPhrase() throws {
        let message = try SIPFixtures.valid("noreason")
        #expect(message.response?.statusCode == 100)
        #expect(message.response?.reasonPhrase == "")
        try SIPFixtures.expectRoundTrip(message)
    }
}
