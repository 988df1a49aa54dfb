/// sipp 3.6 UAC scenarios for what happens inside a phone's call (`SIPDialogInteropTests`): each
/// INVITE is challenged (407) and sent again with digest credentials (`[authentication]`), the
/// server's To tag is kept in `$servertag` for the requests that follow. `[field0]` and `[field1]`
/// are the endpoint's username and password, put in by the test.
enum SIPDialogScenarios {
    /// An SDP offer or answer from the "phone" at `port` (a UDP socket of the test, which sends
    /// nothing, or sipp's `[media_port]`); without RFC 4733 `events`, PCMU alone.
    static func sdp(port: any CustomStringConvertible, direction: String, version: Int, events: Bool = true) -> String {
        """
        v=0
        o=- 4242 \(version) IN IP4 127.0.0.1
        s=-
        c=IN IP4 127.0.0.1
        t=0 0
        m=audio \(port) RTP/AVP 0\(events ? " 101" : "")
        a=rtpmap:0 PCMU/8000
        \(events ? "a=rtpmap:101 telephone-event/8000\na=fmtp:101 0-15\n" : "")a=\(direction)
        """
    }

    /// Header lines, each ending in a newline and indented as the message's; none for "" (sipp
    /// would take an empty line for the end of the headers).
    static func lines(_ text: String) -> String {
        text.split(separator: "\n").map { "\($0)\n        " }.joined()
    }

    static let from = "<sip:[field0]@[remote_ip]>;tag=[pid]SIPpTag00[call_number]"
    static let to = "<sip:[service]@[remote_ip]:[remote_port]>"

    /// INVITE, 407, ACK, INVITE with credentials: `answered` says what follows the second INVITE's 1xx.
    static func invite(sdpPort: any CustomStringConvertible, headers: String = "", answered: String) -> String {
        func request(_ cseq: Int, auth: Bool) -> String {
            """
              <send retrans="500"><![CDATA[
                INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
                Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
                From: \(from)
                To: \(to)
                Call-ID: [call_id]
                CSeq: \(cseq) INVITE
                Contact: <sip:[field0]@[local_ip]:[local_port]>
                Max-Forwards: 70
                Allow: INVITE, ACK, BYE, CANCEL, INFO
                \(lines((auth ? "[authentication username=[field0] password=[field1]]\n" : "") + headers))Content-Type: application/sdp
                Content-Length: [len]

            \(sdp(port: sdpPort, direction: "sendrecv", version: 1))
              ]]></send>
            """
        }
        return """
            \(request(1, auth: false))
              <recv response="100" optional="true"/>
              <recv response="407" auth="true"/>
              <send><![CDATA[
                ACK sip:[service]@[remote_ip]:[remote_port] SIP/2.0
                [last_Via:]
                From: \(from)
                [last_To:]
                Call-ID: [call_id]
                CSeq: 1 ACK
                Max-Forwards: 70
                Content-Length: 0

              ]]></send>
            \(request(2, auth: true))
              <recv response="100" optional="true"/>
            \(answered)
            """
    }

    /// The 200 of the INVITE (checked with `checks`), its ACK, the server's tag kept.
    static func answeredAndAcknowledged(checks: String = "") -> String {
        """
          <recv response="180" optional="true"/>
          <recv response="200">
            <action>
              <ereg regexp=";tag=([^;> ]+)" search_in="hdr" header="To:" assign_to="totag,servertag"/>
              \(checks)
            </action>
          </recv>
        \(ack(cseq: 2))
        """
    }

    /// A request of ours in the dialog (after the INVITE's ACK).
    static func inDialog(_ method: String, cseq: Int, headers: String = "", body: String = "", contentType: String? = nil) -> String {
        """
          <send retrans="500"><![CDATA[
            \(method) sip:parley@[remote_ip]:[remote_port] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
            From: \(from)
            To: \(to);tag=[$servertag]
            Call-ID: [call_id]
            CSeq: \(cseq) \(method)
            Contact: <sip:[field0]@[local_ip]:[local_port]>
            Max-Forwards: 70
            \(lines(headers + (contentType.map { "\nContent-Type: \($0)" } ?? "")))Content-Length: [len]

        \(body)
          ]]></send>
        """
    }

    /// The ACK of a re-INVITE's 2xx, with `answer` when the re-INVITE had no offer.
    static func ack(cseq: Int, answer: String? = nil) -> String {
        """
          <send><![CDATA[
            ACK sip:parley@[remote_ip]:[remote_port] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
            From: \(from)
            To: \(to);tag=[$servertag]
            Call-ID: [call_id]
            CSeq: \(cseq) ACK
            Max-Forwards: 70
            \(answer == nil ? "" : "Content-Type: application/sdp\n        ")Content-Length: [len]

        \(answer ?? "")
          ]]></send>
        """
    }

    /// A 200 that must carry `pattern` (a regular expression) in its body or header `header`.
    static func expect200(_ pattern: String, variable: String, header: String? = nil) -> String {
        let search = header.map { "search_in=\"hdr\" header=\"\($0)\"" } ?? "search_in=\"body\""
        return """
              <recv response="200">
                <action><ereg regexp="\(pattern)" \(search) check_it="true" assign_to="\(variable)"/></action>
              </recv>
            """
    }

    /// The server's re-INVITE (its body, or with `header` that header, must match `pattern`),
    /// answered 200 with our SDP (`direction`) and `headers`, and its ACK.
    static func answerServerReinvite(_ pattern: String, variable: String, header: String? = nil, sdpPort: any CustomStringConvertible, direction: String,
                                     version: Int, headers: String = "", timeout: Int = 20000) -> String {
        let search = header.map { "search_in=\"hdr\" header=\"\($0)\"" } ?? "search_in=\"body\""
        return """
              <recv request="INVITE" timeout="\(timeout)">
                <action><ereg regexp="\(pattern)" \(search) check_it="true" assign_to="\(variable)"/></action>
              </recv>
              <send><![CDATA[
                SIP/2.0 200 OK
                \(replyHeaders)
                Contact: <sip:[field0]@[local_ip]:[local_port]>
                \(lines(headers))Content-Type: application/sdp
                Content-Length: [len]

            \(sdp(port: sdpPort, direction: direction, version: version))
              ]]></send>
              <recv request="ACK"/>
            """
    }

    /// A response's copies of the request's headers (RFC 3261 §8.2.6.2).
    static let replyHeaders = "[last_Via:]\n[last_From:]\n[last_To:]\n[last_Call-ID:]\n[last_CSeq:]"

    /// The server's BYE, answered.
    static let answerBye = """
          <recv request="BYE" timeout="20000"/>
          <send><![CDATA[
            SIP/2.0 200 OK
            \(replyHeaders)
            Content-Length: 0

          ]]></send>
        """

    /// sipp refuses a variable assigned and never read, and one read and never assigned.
    static func references(_ body: String, _ variables: [String]) -> String {
        let all = (body.contains("servertag") ? ["totag", "servertag"] : []) + variables
        return all.isEmpty ? "" : "<Reference variables=\"\(all.joined(separator: ","))\"/>"
    }

    static func scenario(_ name: String, _ body: String, variables: [String]) -> String {
        """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="\(name)">
        \(body)
          \(references(body, variables))
        </scenario>
        """
    }
}
