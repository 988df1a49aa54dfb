import Testing
@testable import SIPWire

/// RFC 4475 §3.1.2: invalid messages. Each is refused, by the parser when it cannot be framed or
/// its start line is wrong, by ``SIPMessageContent/validate()`` otherwise, with the error a 400
/// (or 505) reason phrase names; none traps.
@Suite struct RFC4475InvalidMessageTests {
    @Test func section3_1_2_1_extraneousHeaderSeparators() throws {
        #expect(try SIPFixtures.error("badinv01") == .invalidHeader(name: "Via"))
        // The Contact's empty parameters are refused as well.
        let message = try SIPFixtures.parse("badinv01")
        #expect(throws: SIPParseError.invalidHeader(name: "Contact")) { try message.headers.all("Contact", as: SIPContact.self) }
    }

    @Test func section3_1_2_2_contentLengthLargerThanMessage() throws {
        let error = try SIPFixtures.error("clerr")
        guard case .bodyTruncated(expected: 9999, _)? = error else {
            Issue.record("expected bodyTruncated, got \(String(describing: error))")
            return
        }
        #expect(error?.statusCode == 400)
    }

    @Test func section3_1_2_3_negativeContentLength() throws {
        #expect(try SIPFixtures.error("ncl") == .invalidContentLength)
    }

    @Test func section3_1_2_4_requestScalarFieldsWithOverlargeValues() throws {
        #expect(try SIPFixtures.error("scalar02") == .invalidHeader(name: "CSeq"))
        let message = try SIPFixtures.parse("scalar02")
        #expect(message.maxForwards == nil)  // 300
        #expect(message.expires == nil)
        #expect(message.contacts.first?.address?.expires == nil)  // 280297596632815 > 2^32
    }

    @Test func section3_1_2_5_responseScalarFieldsWithOverlargeValues() throws {
        #expect(try SIPFixtures.error("scalarlg") == .invalidHeader(name: "CSeq"))
        #expect(try SIPFixtures.parse("scalarlg").response?.statusCode == 503)
    }

    @Test func section3_1_2_6_unterminatedQuotedDisplayName() throws {
        #expect(try SIPFixtures.error("quotbal") == .invalidHeader(name: "To"))
    }

    @Test func section3_1_2_7_angleBracketsAroundRequestURI() throws {
        #expect(try SIPFixtures.error("ltgtruri") == .invalidRequestURI)
    }

    @Test func section3_1_2_8_embeddedLWSInRequestURI() throws {
        #expect(try SIPFixtures.error("lwsruri") == .invalidStartLine)
    }

    @Test func section3_1_2_9_multipleSPInRequestLine() throws {
        #expect(try SIPFixtures.error("lwsstart") == .invalidStartLine)
    }

    @Test func section3_1_2_10_trailingSPInRequestLine() throws {
        #expect(try SIPFixtures.error("trws") == .invalidStartLine)
    }

    @Test func section3_1_2_11_escapedHeadersInRequestURI() throws {
        #expect(try SIPFixtures.error("escruri") == .invalidRequestURI)
    }

    /// A UA may accept the message; the Date value itself is refused.
    @Test func section3_1_2_12_invalidTimeZoneInDate() throws {
        let message = try SIPFixtures.parse("baddate")
        let date = try #require(message.header("Date"))
        #expect(throws: SIPParseError.invalidHeader(name: "Date")) { try SIPDate(parsing: date, header: "Date") }
        #expect(try SIPDate(parsing: "Sat, 13 Nov 2010 23:29:00 GMT", header: "Date").text == "Sat, 13 Nov 2010 23:29:00 GMT")
    }

    @Test func section3_1_2_13_unbracketedURIWithHeaders() throws {
        #expect(try SIPFixtures.error("regbadct") == .invalidHeader(name: "Contact"))
    }

    @Test func section3_1_2_14_spacesWithinAddrSpec() throws {
        #expect(try SIPFixtures.error("badaspec") == .invalidHeader(name: "To"))
    }

    @Test func section3_1_2_15_nonTokenCharactersInDisplayName() throws {
        #expect(try SIPFixtures.error("baddn") == .invalidHeader(name: "From"))
    }

    @Test func section3_1_2_16_unknownProtocolVersion() throws {
        let error = try #require(try SIPFixtures.error("badvers"))
        #expect(error == .unsupportedVersion("SIP/7.0"))
        #expect(error.statusCode == 505)
        let request = try #require(try SIPFixtures.parse("badvers").request)
        let answer = SIPResponse(replyingTo: request, error: error, toTag: "x1")
        #expect(answer.startLine == "SIP/2.0 505 Version Not Supported")
        #expect(answer.to?.tag == "x1")
    }

    @Test func section3_1_2_17_startLineAndCSeqMethodMismatch() throws {
        #expect(try SIPFixtures.error("mismatch01") == .cseqMethodMismatch)
    }

    @Test func section3_1_2_18_unknownMethodWithCSeqMismatch() throws {
        #expect(try SIPFixtures.error("mismatch02") == .cseqMethodMismatch)
    }

    @Test func section3_1_2_19_overlargeResponseCode() throws {
        #expect(try SIPFixtures.error("bigcode") == .invalidStatusCode)
    }

    /// Every §3.1.2 error names its problem in a 400 reason phrase.
    @Test func invalidMessagesGiveAReasonPhrase() throws {
        let names = ["badinv01", "clerr", "ncl", "scalar02", "scalarlg", "quotbal", "ltgtruri", "lwsruri", "lwsstart", "trws",
                     "escruri", "regbadct", "badaspec", "baddn", "mismatch01", "mismatch02", "bigcode"]
        for name in names {
            let error = try #require(try SIPFixtures.error(name), "\(name) was accepted")
            #expect(error.reasonPhrase.hasPrefix("Bad Request ("), "\(name): \(error.reasonPhrase)")
        }
    }
}

/// RFC 4475 §3.2–§3.4: transaction and application semantics the wire layer exposes.
@Suite struct RFC4475SemanticsTests {
    @Test func section3_2_1_missingTransactionIdentifier() throws {
        let message = try SIPFixtures.valid("badbranch")
        #expect(message.via?.branch == "z9hG4bK")
        #expect(message.via?.hasRFC3261Branch == false)
    }

    @Test func section3_3_1_missingRequiredHeaders() throws {
        let error = try #require(try SIPFixtures.error("insuf"))
        #expect(error == .missingHeader("From"))
        let request = try #require(try SIPFixtures.parse("insuf").request)
        let answer = SIPResponse(replyingTo: request, error: error)
        #expect(answer.startLine == "SIP/2.0 400 Bad Request (Missing From)")
        #expect(answer.via?.branch == "z9hG4bKkdj.insuf" && answer.cseq == SIPCSeq(193942, .invite))
    }

    @Test func section3_3_2_unknownRequestURIScheme() throws {
        let uri = try #require(try SIPFixtures.valid("unkscm").request?.uri)
        #expect(uri == .other(scheme: "nobodyknowsthisscheme", value: "totallyopaquecontent"))
    }

    @Test func section3_3_3_atypicalScheme() throws {
        #expect(try SIPFixtures.valid("novelsc").request?.uri.scheme == "soap.beep")
    }

    @Test func section3_3_4_unknownSchemesInHeaders() throws {
        let message = try SIPFixtures.valid("unksm2")
        #expect(message.to?.uri == .other(scheme: "isbn", value: "2983792873"))
        #expect(message.from?.uri.scheme == "http")
        #expect(message.contacts.first?.address?.uri.scheme == "name")
    }

    @Test func section3_3_5_requireAndProxyRequire() throws {
        let message = try SIPFixtures.valid("bext01")
        #expect(message.require == ["nothingSupportsThis", "nothingSupportsThisEither"])
        #expect(message.proxyRequire == ["noProxiesSupportThis", "norDoAnyProxiesSupportThis"])
    }

    @Test func section3_3_6_unknownContentType() throws {
        let message = try SIPFixtures.valid("invut")
        #expect(message.contentType == SIPMediaType(type: "application", subtype: "unknownformat"))
        #expect(message.body.count == 40)
    }

    @Test func section3_3_7_unknownAuthorizationScheme() throws {
        let message = try SIPFixtures.valid("regaut01")
        #expect(message.authorization.isEmpty)
        let auth = try #require(try message.headers.first("Authorization", as: SIPAuthHeader.self))
        #expect(auth.scheme == "NoOneKnowsThisScheme" && !auth.isDigest)
        #expect(auth.parameters == [SIPParameter("opaque-data", "here")])
    }

    @Test func section3_3_8_multipleValuesInSingleValueFields() throws {
        #expect(try SIPFixtures.error("multi01") == .duplicateHeader("CSeq"))
    }

    @Test func section3_3_9_multipleContentLengths() throws {
        #expect(try SIPFixtures.error("mcl01") == .duplicateHeader("Content-Length"))
    }

    @Test func section3_3_10_broadcastVia() throws {
        let message = try SIPFixtures.valid("bcast")
        #expect(message.vias.last?.host == .ipv4("255.255.255.255"))
    }

    @Test func section3_3_11_maxForwardsZero() throws {
        #expect(try SIPFixtures.valid("zeromf").maxForwards == 0)
    }

    /// In an addr-spec the parameters after the URI belong to the header field.
    @Test func section3_3_12_contactParameterAfterAddrSpec() throws {
        let contact = try #require(try SIPFixtures.valid("cparam01").contacts.first?.address)
        #expect(contact.uri.sipURI?.parameters == [])
        #expect(contact.parameters == [SIPParameter("unknownparam")])
        #expect(contact.uri.sipURI?.user == "+19725552222")
    }

    @Test func section3_3_13_contactURIParameter() throws {
        let contact = try #require(try SIPFixtures.valid("cparam02").contacts.first?.address)
        #expect(contact.uri.sipURI?.parameters == [SIPParameter("unknownparam")])
        #expect(contact.parameters == [])
    }

    @Test func section3_3_14_contactWithEscapedHeader() throws {
        let contact = try #require(try SIPFixtures.valid("regescrt").contacts.first?.address?.uri.sipURI)
        #expect(contact.headers == [SIPParameter("Route", "<sip:sip.example.com>")])
        #expect(contact.description == "sip:user@example.com?Route=%3Csip:sip.example.com%3E")
    }

    @Test func section3_3_15_unacceptableAccept() throws {
        let message = try SIPFixtures.valid("sdp01")
        #expect(message.header("Accept") == "text/nobodyKnowsThis")
        #expect(message.contentType?.matches(.sdp) == true)
    }

    /// RFC 2543 syntax: a Via without branch, no Max-Forwards, no Content-Length (the datagram's end).
    @Test func section3_4_1_rfc2543Invite() throws {
        let message = try SIPFixtures.valid("inv2543")
        #expect(message.via?.branch == nil)
        #expect(message.maxForwards == nil)
        #expect(message.contentLength == nil)
        #expect(!message.body.isEmpty)
        // An addr-spec: `;user=phone` after it is a To parameter, not the URI's (RFC 3261 §20.10).
        #expect(message.to?.parameters.value("user") == "phone" && message.to?.uri.sipURI?.userParameter == nil)
        #expect(message.from?.uri.sipURI?.userParameter == "phone")
        #expect(message.recordRoutes.first?.uri.sipURI?.maddr == "ss1.example.com")
    }
}
