import Foundation
@testable import SIPWire
import Testing

/// The registrar's hot path in SIPWire: responses written straight to bytes match the
/// `SIPResponse(replyingTo:)` + `serialized()` path; typed headers parsed once are shared by
/// copies and dropped when the header fields change; hosts and names keep their grammar.
@Suite struct SIPHotPathTests {
    static let register = "REGISTER sip:parley.test SIP/2.0\r\n"
        + "v: SIP/2.0/UDP 192.0.2.7:5062;branch=z9hG4bK-1;rport\r\n"
        + "Via: SIP/2.0/UDP proxy.example;branch=z9hG4bK-0\r\n"
        + "From: \"Alice\" <sip:alice@parley.test>;tag=a1\r\n"
        + "To: <sip:alice@parley.test>\r\n"
        + "i: c-1@192.0.2.7\r\nCSeq: 2 REGISTER\r\nMax-Forwards: 70\r\nTimestamp: 54\r\n"
        + "m: <sip:alice@192.0.2.7:5062;transport=udp>;expires=600\r\nContent-Length: 0\r\n\r\n"

    static func request(_ text: String = register) throws -> SIPRequest {
        guard case .request(let request) = try SIPMessage(parsing: text) else { throw Failure() }
        return request
    }

    struct Failure: Error {}

    @Test(arguments: [100, 200, 401, 403, 500])
    func aWrittenReplyIsTheSerializedResponse(status: Int) throws {
        let request = try Self.request()
        var writer = SIPReplyWriter(replyingTo: request, statusCode: status, toTag: "t9")
        writer.add("www-authenticate", #"Digest realm="parley.test", nonce="n", algorithm=MD5, qop="auth""#)
        writer.add("Contact", "<sip:alice@192.0.2.7:5062>;expires=600")
        let headers: SIPHeaders = ["www-authenticate": #"Digest realm="parley.test", nonce="n", algorithm=MD5, qop="auth""#,
                                   "Contact": "<sip:alice@192.0.2.7:5062>;expires=600"]
        let expected = SIPResponse(replyingTo: request, statusCode: status, toTag: "t9", headers: headers).serialized()
        #expect(String(decoding: writer.finish(), as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    @Test func aToThatHasATagKeepsItAndAnAddrSpecToGetsTheTagAsAHeaderParameter() throws {
        let tagged = try Self.request(Self.register.replacingOccurrences(of: "To: <sip:alice@parley.test>", with: "To: <sip:alice@parley.test>;tag=x"))
        let text = String(decoding: SIPReplyWriter(replyingTo: tagged, statusCode: 200, toTag: "t9").finish(), as: UTF8.self)
        #expect(text.contains("\r\nTo: <sip:alice@parley.test>;tag=x\r\n"))
        let bare = try Self.request(Self.register.replacingOccurrences(of: "To: <sip:alice@parley.test>", with: "To: sip:alice@parley.test"))
        let reply = try SIPMessage(parsing: String(decoding: SIPReplyWriter(replyingTo: bare, statusCode: 200, toTag: "t9").finish(), as: UTF8.self))
        #expect(reply.to?.tag == "t9" && reply.to?.uri.description == "sip:alice@parley.test")
    }

    @Test func typedHeadersAreParsedOnceAndForgottenWhenTheFieldsChange() throws {
        var request = try Self.request()
        let cache = try #require(request.headerCache)
        #expect(request.to?.tag == nil && request.vias.count == 2 && request.via?.branch == "z9hG4bK-1")
        let copy = request
        #expect(copy.headerCache === cache)
        request.headers.set("To", "<sip:bob@parley.test>;tag=b")
        #expect(request.headerCache !== cache)
        #expect(request.to?.tag == "b" && copy.to?.tag == nil)
        #expect(request != copy && request == request)
        request.headers.set("Via", "garbage")
        #expect(request.vias.isEmpty && request.via == nil)
        #expect(throws: SIPParseError.self) { try request.validate() }
    }

    @Test func ipv4AddressesKeepTheirGrammar() {
        for good in ["0.0.0.0", "192.0.2.7", "255.255.255.255", "010.1.1.1"] { #expect(SIPHost.isIPv4(Array(good.utf8)[...]), "\(good)") }
        for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "1.2.3.", ".1.2.3", "1234.1.1.1", "1.2.3.a", "1.2.3.4 "] {
            #expect(!SIPHost.isIPv4(Array(bad.utf8)[...]), "\(bad)")
        }
    }

    @Test func headerNamesLowercaseWithoutChangingOtherBytes() {
        #expect(SIPCharacters.lowercased("Via") == "via" && SIPCharacters.lowercased("call-id") == "call-id")
        #expect(SIPCharacters.lowercased("WWW-Authenticate-Ä") == "www-authenticate-Ä")
        #expect(SIPHeaderName.key("V") == "via" && SIPHeaderName.key("Proxy-Authorization") == "proxy-authorization")
    }
}
