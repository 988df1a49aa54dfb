import SIP
import SIPWire

/// The SIP registrar's per-message work without sockets (`parley-bench parsers`): what a REGISTER
/// with digest credentials costs to parse and check, and what its 401 costs to build and write.
enum SIPParserBench {
    static let register = Array(("REGISTER sip:parley SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:25100;branch=z9hG4bK-5475-1-0\r\n"
        + "From: <sip:bench0690898132690@parley>;tag=1\r\nTo: <sip:bench0690898132690@parley>\r\nCall-ID: 1-5475@127.0.0.1\r\n"
        + "CSeq: 2 REGISTER\r\nContact: <sip:bench0690898132690@127.0.0.1:25100>\r\n"
        + "Authorization: Digest username=\"bench0690898132690\",realm=\"parley\",uri=\"sip:parley\",nonce=\"MTc5NjY1NTMyNy43MDUxMDUuYWJj\","
        + "response=\"0123456789abcdef0123456789abcdef\",algorithm=MD5,cnonce=\"6b8b4567\",qop=auth,nc=00000001\r\n"
        + "Max-Forwards: 70\r\nExpires: 3600\r\nContent-Length: 0\r\n\r\n").utf8)

    static func runAll() {
        measure("SIP REGISTER parse + validate (11 headers)", unitBytes: register.count) {
            _ = try? SIPMessage.parse(datagram: register).validate()
        }
        measure("SIP REGISTER parse only", unitBytes: register.count) { _ = try? SIPMessage.parse(datagram: register) }
        guard case .request(let request)? = try? SIPMessage.parse(datagram: register) else { return print("SIP bench request did not parse") }
        measure("SIP Authorization header read (digest)") {
            _ = try? request.headers.first("Authorization", as: SIPDigestCredentials.self)
        }
        let verifier = DigestVerifier(realm: "parley")
        measure("SIP 401: challenge, build, serialize") {
            var headers = SIPHeaders()
            for value in verifier.challenges(now: 1_796_655_327) { headers.add("WWW-Authenticate", value) }
            _ = SIPMessage.response(SIPResponse(replyingTo: request, statusCode: 401, toTag: "6xlib40pji3b", headers: headers)).serialized()
        }
    }
}
