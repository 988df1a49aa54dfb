import Foundation
import Testing
@testable import SIPWire

/// The messages of RFC 3261 §24.2 (the session setup between Alice and Bob) and §24.1
/// (registration), parsed, read through the typed accessors and answered.
@Suite struct RFC3261ExampleTests {
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
        Content-Length: 4\r
        \r
        v=0

        """

    @Test func section24_2_inviteParses() throws {
        let message = try SIPMessage(parsing: Self.invite.replacingOccurrences(of: "v=0\n", with: "v=0\n"))
        let request = try #require(message.request)
        #expect(request.method == .invite)
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
        #expect(request.contentType?.matches(.sdp) == true)
        #expect(request.body == Array("v=0\n".utf8))
    }
}
