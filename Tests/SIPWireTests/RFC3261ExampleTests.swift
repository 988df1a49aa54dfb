import Foundation
import Testing
@testable import SIPWire

/// The messages of RFC 3261 §24 (registration, §24.1; session setup between Alice and Bob,
/// §24.2), parsed, read through the typed accessors, answered and serialized.
@Suite struct RFC3261ExampleTests {
    /// F1 of §24.2, as it leaves Alice (the SDP body shortened to one line).
    static let invite = """
        INVITE sip:bob@biloxi.com SIP/2.0\r
        Via: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bK776asdhds\r
        Max-Forwards: 70\r
        To: Bob <sip:bob@biloxi.com>\r
        From: Alice <sip:alice@atlanta.com>;tag=1928301774\r
        Call-ID: a84b4c76e66710@pc33.atlanta.com\r
        CSeq: 314159 INVITE\r
        Contact: <sip:alice@pc33.atlanta.com>\r
        Content-Type: application/sdp\r
        Content-Length: 5\r
        \r
        v=0\r

        """

    /// §24.1's REGISTER from Bob.
    static let register = """
        REGISTER sips:ss2.biloxi.example.com SIP/2.0\r
        Via: SIP/2.0/TLS client.biloxi.example.com:5061;branch=z9hG4bKnashds7\r
        Max-Forwards: 70\r
        From: Bob <sips:bob@biloxi.example.com>;tag=a73kszlfl\r
        To: Bob <sips:bob@biloxi.example.com>\r
        Call-ID: 1j9FpLxk3uxtm8tn@biloxi.example.com\r
        CSeq: 1 REGISTER\r
        Contact: <sips:bob@client.biloxi.example.com>\r
        Content-Length: 0\r
        \r

        """

    @Test func section24_2_inviteParses() throws {
        let message = try SIPMessage(parsing: Self.invite)
        let request = try #require(message.request)
        #expect(request.method == SIPMethod.invite)
        #expect(request.uri.sipURI?.user == "bob")
        #expect(request.uri.sipURI?.host == .hostname("biloxi.com"))
        #expect(request.via?.branch == "z9hG4bK776asdhds")
        #expect(request.via?.transport == "UDP")
        #expect(request.via?.host == .hostname("pc33.atlanta.com"))
        #expect(request.maxForwards == 70)
        #expect(request.to?.displayName == "Bob")
        #expect(request.to?.tag == nil)
        #expect(request.from?.displayName == "Alice")
        #expect(request.from?.tag == "1928301774")
        #expect(request.callID == "a84b4c76e66710@pc33.atlanta.com")
        #expect(request.cseq == SIPCSeq(314159, .invite))
        #expect(request.contacts.first?.address?.uri.sipURI?.host == .hostname("pc33.atlanta.com"))
        #expect(request.contentType?.matches(SIPMediaType.sdp) == true)
        #expect(request.body == Array("v=0\r\n".utf8))
        #expect(request.serializedText() == Self.invite)
    }

    /// F2/F4: the 180 Ringing Bob sends, built from the INVITE (RFC 3261 §8.2.6.2).
    @Test func section24_2_ringingBuiltFromInvite() throws {
        var invite = try #require(try SIPMessage(parsing: Self.invite).request)
        invite.headers.insertFirst("Via", "SIP/2.0/UDP server10.biloxi.com;branch=z9hG4bK4b43c2ff8.1;received=192.0.2.3")
        invite.headers.add("Record-Route", "<sip:server10.biloxi.com;lr>")
        let ringing = SIPResponse(replyingTo: invite, statusCode: 180, toTag: "a6c85cf", recordRoute: true,
                                  headers: ["Contact": "<sip:bob@192.0.2.4>"])
        #expect(ringing.startLine == "SIP/2.0 180 Ringing")
        #expect(ringing.vias.map(\.branch) == ["z9hG4bK4b43c2ff8.1", "z9hG4bK776asdhds"])
        #expect(ringing.vias.first?.received == .ipv4("192.0.2.3"))
        #expect(ringing.to?.tag == "a6c85cf" && ringing.to?.displayName == "Bob")
        #expect(ringing.from == invite.from && ringing.callID == invite.callID && ringing.cseq == invite.cseq)
        #expect(ringing.recordRoutes.count == 1)
        #expect(ringing.contacts.first?.address?.uri.sipURI?.host == .ipv4("192.0.2.4"))
        #expect(ringing.header("Max-Forwards") == nil && ringing.contentType == nil)
        let text = ringing.serializedText()
        #expect(text.hasSuffix("Content-Length: 0\r\n\r\n"))
        #expect(try SIPMessage(parsing: text).response == ringing.withLength(0))
        // 100 Trying carries no To tag (§8.2.6.2) but copies Timestamp (§8.2.6.1).
        invite.headers.add("Timestamp", "54")
        let trying = SIPResponse(replyingTo: invite, statusCode: 100, toTag: "a6c85cf")
        #expect(trying.to?.tag == nil && trying.header("Timestamp") == "54" && trying.reasonPhrase == "Trying")
    }

    @Test func section24_1_registerAndItsOK() throws {
        let request = try #require(try SIPMessage(parsing: Self.register).request)
        #expect(request.method == .register)
        #expect(request.uri.sipURI?.isSecure == true)
        #expect(request.via?.transport == "TLS" && request.via?.port == 5061 && request.via?.sentByPort == 5061)
        #expect(request.contacts == [.address(SIPNameAddress(uri: try SIPURI(parsing: "sips:bob@client.biloxi.example.com")))])
        var ok = SIPResponse(replyingTo: request, statusCode: 200, toTag: "37GkEhwl6")
        ok.headers.add("Contact", "<sips:bob@client.biloxi.example.com>;expires=3600")
        #expect(ok.contacts.first?.address?.expires == 3600)
        #expect(ok.to?.tag == "37GkEhwl6")
        #expect(try SIPMessage(parsing: ok.serializedText()).response?.contacts == ok.contacts)
    }

    /// Compact names in, canonical names out (RFC 3261 §7.3.3); kept as received for proxying.
    @Test func section7_3_3_compactFormsSerializeCanonically() throws {
        let text = "OPTIONS sip:carol@chicago.com SIP/2.0\r\nv: SIP/2.0/UDP pc33.atlanta.com;branch=z9hG4bKhjhs8ass877\r\n"
            + "f: <sip:alice@atlanta.com>;tag=1928301774\r\nt: <sip:carol@chicago.com>\r\ni: a84b4c76e66710\r\n"
            + "CSeq: 63104 OPTIONS\r\nm: <sip:alice@pc33.atlanta.com>\r\nk: timer, 100rel\r\nl: 0\r\n\r\n"
        let message = try SIPMessage(parsing: text)
        #expect(message.supported == ["timer", "100rel"])
        let canonical = message.serializedText()
        for name in ["Via:", "From:", "To:", "Call-ID:", "Contact:", "Supported:", "Content-Length:"] {
            #expect(canonical.contains("\r\n\(name) "), "\(name)")
        }
        #expect(message.serializedText(.asReceived) == text)
    }
}

extension SIPResponse {
    /// The response with a Content-Length field, as it parses after serialization.
    func withLength(_ length: Int) -> SIPResponse {
        var copy = self
        copy.headers.set("Content-Length", String(length))
        return copy
    }
}
