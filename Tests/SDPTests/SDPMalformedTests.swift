import Testing
@testable import SDP

/// A malformed input and the typed error it must produce.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var line: Int
    var reason: SDPParseError.Reason
    var testDescription: String { name }
}

private let head = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
private let audio = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
/// `head` + `audio` + `line`: the line under test is line 6.
private func inMedia(_ line: String) -> String { head + audio + line + "\r\n" }
private func candidate(_ rest: String) -> String { inMedia("a=candidate:\(rest)") }

private let cases: [MalformedCase] = [
    MalformedCase(name: "empty", text: "", line: 0, reason: .empty),
    MalformedCase(name: "only newlines", text: "\r\n\r\n", line: 0, reason: .empty),
    MalformedCase(name: "missing v=", text: "o=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", line: 1, reason: .missingVersion),
    MalformedCase(name: "v=1", text: "v=1\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", line: 1, reason: .unsupportedVersion),
    MalformedCase(name: "missing o=", text: "v=0\r\ns=-\r\nt=0 0\r\n", line: 2, reason: .missingLine("o")),
    MalformedCase(name: "missing s=", text: "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\nt=0 0\r\n", line: 3, reason: .missingLine("s")),
    MalformedCase(name: "truncated after v=", text: "v=0\r\n", line: 0, reason: .missingLine("o")),
    MalformedCase(name: "missing t= before m=", text: "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\n" + audio,
                  line: 4, reason: .missingLine("t")),
    MalformedCase(name: "missing t= at end", text: "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\n", line: 0, reason: .missingLine("t")),
    MalformedCase(name: "non-numeric session id", text: "v=0\r\no=- abc 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n",
                  line: 2, reason: .invalidOrigin),
    MalformedCase(name: "short origin", text: "v=0\r\no=- 1 2 IN IP4\r\ns=-\r\nt=0 0\r\n", line: 2, reason: .invalidOrigin),
    MalformedCase(name: "line without x=", text: head + "hello\r\n", line: 5, reason: .malformedLine),
    MalformedCase(name: "uppercase type", text: "V=0\r\n", line: 1, reason: .malformedLine),
    MalformedCase(name: "space before =", text: head + "a =x\r\n", line: 5, reason: .malformedLine),
    MalformedCase(name: "blank line inside", text: head + "\r\n" + audio, line: 5, reason: .malformedLine),
    MalformedCase(name: "unknown type letter", text: head + "y=foo\r\n", line: 5, reason: .unknownLineType("y")),
    MalformedCase(name: "second s=", text: head + "s=again\r\n", line: 5, reason: .unexpectedLine("s")),
    MalformedCase(name: "second session c=", text: head + "c=IN IP4 1.2.3.4\r\nc=IN IP4 1.2.3.4\r\n",
                  line: 6, reason: .unexpectedLine("c")),
    MalformedCase(name: "t= in media", text: inMedia("t=0 0"), line: 6, reason: .unexpectedLine("t")),
    MalformedCase(name: "r= without t=", text: "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nr=7d 1h 0\r\nt=0 0\r\n",
                  line: 4, reason: .invalidRepeat),
    MalformedCase(name: "bad r=", text: head + "r=7x 1h 0\r\n", line: 5, reason: .invalidRepeat),
    MalformedCase(name: "bad t=", text: "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=now\r\n", line: 4, reason: .invalidTiming),
    MalformedCase(name: "odd z=", text: head + "z=2882844526\r\n", line: 5, reason: .invalidTimeZone),
    MalformedCase(name: "bad c=", text: inMedia("c=IN IP4"), line: 6, reason: .invalidConnection),
    MalformedCase(name: "bad b=", text: inMedia("b=AS"), line: 6, reason: .invalidBandwidth),
    MalformedCase(name: "m= without formats", text: head + "m=audio 9 UDP/TLS/RTP/SAVPF\r\n", line: 5, reason: .invalidMedia),
    MalformedCase(name: "m= with one field", text: head + "m=audio\r\n", line: 5, reason: .invalidMedia),
    MalformedCase(name: "port out of range", text: head + "m=audio 70000 RTP/AVP 0\r\n", line: 5, reason: .invalidPort),
    MalformedCase(name: "port not a number", text: head + "m=audio x9 RTP/AVP 0\r\n", line: 5, reason: .invalidPort),
    MalformedCase(name: "negative port", text: head + "m=audio -9 RTP/AVP 0\r\n", line: 5, reason: .invalidPort),
    MalformedCase(name: "bad port count", text: head + "m=audio 9/x RTP/AVP 0\r\n", line: 5, reason: .invalidPort),
    MalformedCase(name: "empty attribute name", text: inMedia("a=:x"), line: 6, reason: .malformedAttribute),
    MalformedCase(name: "rtpmap without clock rate", text: inMedia("a=rtpmap:111 opus"),
                  line: 6, reason: .invalidAttributeValue("rtpmap")),
    MalformedCase(name: "rtpmap with bad clock rate", text: inMedia("a=rtpmap:111 opus/fast/2"),
                  line: 6, reason: .invalidAttributeValue("rtpmap")),
    MalformedCase(name: "rtpmap payload type 128", text: inMedia("a=rtpmap:128 opus/48000/2"),
                  line: 6, reason: .invalidAttributeValue("rtpmap")),
    MalformedCase(name: "candidate with bad port", text: candidate("1 1 udp 2122260223 127.0.0.1 99999 typ host"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "candidate with bad priority", text: candidate("1 1 udp 99999999999 127.0.0.1 9 typ host"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "candidate with negative priority", text: candidate("1 1 udp -5 127.0.0.1 9 typ host"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "candidate with component 0", text: candidate("1 0 udp 1 127.0.0.1 9 typ host"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "candidate without typ", text: candidate("1 1 udp 1 127.0.0.1 9 host"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "candidate with unknown type", text: candidate("1 1 udp 1 127.0.0.1 9 typ nat"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "candidate with bad rport", text: candidate("1 1 udp 1 1.2.3.4 9 typ srflx raddr 0.0.0.0 rport x"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "candidate with bad tcptype", text: candidate("1 1 tcp 1 1.2.3.4 9 typ host tcptype sideways"),
                  line: 6, reason: .invalidAttributeValue("candidate")),
    MalformedCase(name: "fingerprint with bad hex", text: inMedia("a=fingerprint:sha-256 ZZ:00"),
                  line: 6, reason: .invalidAttributeValue("fingerprint")),
    MalformedCase(name: "fingerprint without colons", text: inMedia("a=fingerprint:sha-256 0D298F"),
                  line: 6, reason: .invalidAttributeValue("fingerprint")),
    MalformedCase(name: "unknown setup role", text: inMedia("a=setup:sometimes"), line: 6, reason: .invalidAttributeValue("setup")),
    MalformedCase(name: "short ice-ufrag", text: inMedia("a=ice-ufrag:ab"), line: 6, reason: .invalidAttributeValue("ice-ufrag")),
    MalformedCase(name: "ice-pwd with bad chars", text: inMedia("a=ice-pwd:" + String(repeating: "!", count: 24)),
                  line: 6, reason: .invalidAttributeValue("ice-pwd")),
    MalformedCase(name: "mid without value", text: inMedia("a=mid"), line: 6, reason: .invalidAttributeValue("mid")),
    MalformedCase(name: "extmap id 0", text: inMedia("a=extmap:0 urn:x"), line: 6, reason: .invalidAttributeValue("extmap")),
    MalformedCase(name: "extmap bad direction", text: inMedia("a=extmap:1/sideways urn:x"),
                  line: 6, reason: .invalidAttributeValue("extmap")),
    MalformedCase(name: "ssrc not a number", text: inMedia("a=ssrc:abc cname:x"), line: 6, reason: .invalidAttributeValue("ssrc")),
    MalformedCase(name: "sctp-port too big", text: inMedia("a=sctp-port:65536"), line: 6, reason: .invalidAttributeValue("sctp-port")),
    MalformedCase(name: "rtcp-fb payload type", text: inMedia("a=rtcp-fb:x nack"), line: 6, reason: .invalidAttributeValue("rtcp-fb")),
    MalformedCase(name: "NUL byte", text: "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=a\u{0}b\r\nt=0 0\r\n", line: 3, reason: .invalidCharacter),
    MalformedCase(name: "stray CR", text: "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=a\rb\r\nt=0 0\r\n", line: 3, reason: .invalidCharacter),
]

@Suite struct SDPMalformedTests {
    @Test(arguments: cases)
    func rejectsWithTypedError(_ bad: MalformedCase) {
        #expect(throws: SDPParseError(line: bad.line, reason: bad.reason)) {
            try SessionDescription(parsing: bad.text)
        }
        // The byte entry point agrees.
        #expect(throws: SDPParseError(line: bad.line, reason: bad.reason)) {
            try SessionDescription(parsing: Array(bad.text.utf8))
        }
    }

    @Test func oversizeInputIsRefusedBeforeParsing() {
        let big = head + String(repeating: "a=x-padding:" + String(repeating: "p", count: 100) + "\r\n", count: 3000)
        #expect(big.utf8.count > 256 * 1024)
        #expect(throws: SDPParseError(line: 0, reason: .inputTooLarge(limit: 256 * 1024))) {
            try SessionDescription(parsing: big)
        }
        #expect(throws: SDPParseError(line: 0, reason: .inputTooLarge(limit: 256 * 1024))) {
            try SessionDescription(parsing: Array(big.utf8))
        }
        // Garbage that is merely large is refused on size alone.
        #expect(throws: SDPParseError(line: 0, reason: .inputTooLarge(limit: 256 * 1024))) {
            try SessionDescription(parsing: [UInt8](repeating: 0xFF, count: 300_000))
        }
    }

    @Test func lineAndSectionLimits() throws {
        let many = head + String(repeating: "a=x\r\n", count: 20)
        #expect(throws: SDPParseError(line: 0, reason: .tooManyLines(limit: 10))) {
            try SessionDescription(parsing: many, limits: SDPLimits(maxLines: 10))
        }
        #expect(try SessionDescription(parsing: many, limits: SDPLimits(maxLines: 24)).attributes.count == 20)
        let sections = head + String(repeating: audio, count: 3)
        #expect(throws: SDPParseError(line: 7, reason: .tooManyMediaSections(limit: 2))) {
            try SessionDescription(parsing: sections, limits: SDPLimits(maxMediaSections: 2))
        }
    }

    @Test func nonUTF8IsRejected() throws {
        var bytes = Array(head.utf8)
        bytes += Array("s=".utf8) + [0xC3, 0x28] + [0x0D, 0x0A]  // invalid two-byte sequence
        #expect(throws: SDPParseError(line: 0, reason: .invalidUTF8)) { try SessionDescription(parsing: bytes) }
        #expect(throws: SDPParseError(line: 0, reason: .invalidUTF8)) {
            try SessionDescription(parsing: Array(head.utf8) + [0xFF, 0xFE])
        }
        // Valid UTF-8 outside ASCII is fine in text fields.
        #expect(try SessionDescription(parsing: Array("v=0\no=- 1 2 IN IP4 0.0.0.0\ns=Café ☕\nt=0 0\n".utf8))
            .sessionName == "Café ☕")
    }

    @Test func standaloneCandidateErrors() {
        for text in ["", "candidate:", "a=candidate:1 1 udp 1 1.2.3.4 70000 typ host", "candidate:1 1 udp x 1.2.3.4 9 typ host",
                     "foo:1 1 udp 1 1.2.3.4 9 typ host", "candidate:" + String(repeating: "f", count: 33) + " 1 udp 1 h 9 typ host"] {
            #expect(throws: SDPParseError(line: 1, reason: .invalidAttributeValue("candidate")), "\(text)") {
                try SDPCandidate(parsing: text)
            }
        }
    }
}
