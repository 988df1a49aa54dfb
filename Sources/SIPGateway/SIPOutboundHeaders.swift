import SIP
import SIPWire

/// The requests `SIPOutboundCalls` builds beyond a plain INVITE: the headers a `<Sip>` URI and a
/// WebRTC caller add, and the INVITE again with credentials after a 401/407.
enum SIPOutboundHeaders {
    /// At most this many custom headers go on an INVITE, each value at most 512 bytes.
    static let maxCustomHeaders = 32
    static let maxValueBytes = 512

    /// The headers a URI carries (`sip:bob@host?X-Foo=bar`, RFC 3261 §19.1.5) that go on the INVITE:
    /// `X-` headers only (a URI may not set Via, Call-ID or the like here), and the URI without them.
    static func uriHeaders(of uri: SIPURI) -> (uri: SIPURI, headers: [(String, String)]) {
        var bare = uri
        bare.headers = []
        let custom = uri.headers.compactMap { header -> (String, String)? in
            guard header.name.utf8.count > 2, header.name.prefix(2).lowercased() == "x-", isToken(header.name),
                  let value = header.value, isSafe(value) else { return nil }
            return (header.name, value)
        }
        return (bare, custom)
    }

    /// A WebRTC caller's custom parameters as Plivo carries them to SIP: `X-PH-<name>: <value>`,
    /// names kept to letters, digits and `-` (others dropped), values without line breaks.
    static func callerParameterHeaders(_ parameters: [(String, String)]) -> [(String, String)] {
        parameters.compactMap { name, value in
            let clean = name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            guard !clean.isEmpty, clean.utf8.count <= 64, isSafe(value) else { return nil }
            return ("X-PH-\(clean)", value)
        }
    }

    /// `extra` (custom headers) as the INVITE's added headers, capped.
    static func headers(_ extra: [(String, String)]) -> SIPHeaders {
        var headers = SIPHeaders()
        for (name, value) in extra.prefix(maxCustomHeaders) { headers.add(name, value) }
        return headers
    }

    /// The INVITE again after `response` (a 401/407 to it) with the answer to its challenge (RFC
    /// 3261 §22.2): the same Call-ID, From tag and To, CSeq one higher, a new branch. Nil when the
    /// response carries no challenge we can answer.
    static func authorized(_ invite: SIPRequest, after response: SIPResponse, username: String, password: String,
                           sentBy: SIPSentBy) -> SIPRequest? {
        guard let names = DigestAnswer.headers(for: response.statusCode), let challenge = DigestAnswer.challenge(in: response),
              let cseq = invite.cseq,
              let credentials = DigestAnswer.credentials(for: challenge, username: username, password: password, method: "INVITE",
                                                         uri: invite.uri.description) else { return nil }
        var next = invite
        next.headers.set("Via", sentBy.via(branch: SIPIdentifiers.branch()).headerValue)
        next.headers.set("CSeq", SIPCSeq(cseq.number + 1, .invite).headerValue)
        next.headers.set(names.answer, credentials.headerValue)
        return next
    }

    private static func isToken(_ name: String) -> Bool {
        name.utf8.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.!%*_+`'~".contains($0)) }
    }

    private static func isSafe(_ value: String) -> Bool {
        value.utf8.count <= maxValueBytes && !value.contains(where: { $0.isNewline || $0 == "\0" })
    }
}
