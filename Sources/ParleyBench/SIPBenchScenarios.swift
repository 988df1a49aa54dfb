import Foundation

/// What `parley-bench sip` gives both servers alike: the bench users (one sipp injection file),
/// the sipp scenarios (Kamailio runs `KamailioConfiguration.registrarProxy`). Every user has the same password, so Kamailio
/// can check digests against one secret in its configuration while Parley looks each user up in
/// its store (the work a real registrar does).
enum SIPBenchScenarios {
    static let password = "s3cret-pw"

    /// sipp's injection file: user; domain; the digest credentials sipp answers challenges with.
    static func users(_ names: [String], domain: String) -> String {
        "SEQUENTIAL\n" + names.map { "\($0);\(domain);[authentication username=\($0) password=\(password)]\n" }.joined()
    }

    private static func register(cseq: Int, authenticated: Bool) -> String {
        """
          <send retrans="500"><![CDATA[
        REGISTER sip:[field1] SIP/2.0
        Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
        From: <sip:[field0]@[field1]>;tag=[call_number]
        To: <sip:[field0]@[field1]>
        Call-ID: [call_id]
        CSeq: \(cseq) REGISTER
        Contact: <sip:[field0]@[local_ip]:[local_port]>\(authenticated ? "\n[field2]" : "")
        Max-Forwards: 70
        Expires: 3600
        Content-Length: 0

        ]]></send>
        """
    }

    /// REGISTER, its 401 challenge, REGISTER with MD5 digest, 200 (RFC 3261 §10.2, §22.2).
    static let registerWithDigest = """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="register-digest">
        \(register(cseq: 1, authenticated: false))
          <recv response="401" auth="true"/>
        \(register(cseq: 2, authenticated: true))
          <recv response="200"/>
        </scenario>
        """

    /// REGISTER answered by its challenge only: what a flood of unauthenticated requests costs.
    static let registerChallenged = """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="register-challenge">
        \(register(cseq: 1, authenticated: false))
          <recv response="401"/>
        </scenario>
        """

    private static func invite(cseq: Int, authenticated: Bool, rtd: Bool) -> String {
        """
          <send retrans="500"\(rtd ? " start_rtd=\"setup\"" : "")><![CDATA[
        INVITE sip:callee@[field1] SIP/2.0
        Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
        From: <sip:[field0]@[field1]>;tag=[call_number]
        To: <sip:callee@[field1]>
        Call-ID: [call_id]
        CSeq: \(cseq) INVITE
        Contact: <sip:[field0]@[local_ip]:[local_port]>\(authenticated ? "\n[field2]" : "")
        Max-Forwards: 70
        Content-Type: application/sdp
        Content-Length: [len]

        v=0
        o=sipp 1 1 IN IP4 [local_ip]
        s=-
        c=IN IP4 [local_ip]
        t=0 0
        m=audio [media_port] RTP/AVP 0 101
        a=rtpmap:0 PCMU/8000
        a=rtpmap:101 telephone-event/8000
        a=sendrecv

        ]]></send>
        """
    }

    /// A call: INVITE, 407, ACK, INVITE with digest (the setup time runs from here), 200, ACK,
    /// `holdMilliseconds` of call, BYE, 200.
    static func call(holdMilliseconds: Int) -> String {
        """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="call">
        \(invite(cseq: 1, authenticated: false, rtd: false))
          <recv response="100" optional="true"/>
          <recv response="407" auth="true"/>
          <send><![CDATA[
        ACK sip:callee@[field1] SIP/2.0
        [last_Via:]
        [last_From:]
        [last_To:]
        [last_Call-ID:]
        CSeq: 1 ACK
        Max-Forwards: 70
        Content-Length: 0

        ]]></send>
        \(invite(cseq: 2, authenticated: true, rtd: true))
          <recv response="100" optional="true"/>
          <recv response="180" optional="true"/>
          <recv response="183" optional="true"/>
          <recv response="200" rrs="true" rtd="setup"/>
          <send><![CDATA[
        ACK [next_url] SIP/2.0
        Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
        [routes]
        From: <sip:[field0]@[field1]>;tag=[call_number]
        [last_To:]
        Call-ID: [call_id]
        CSeq: 2 ACK
        Max-Forwards: 70
        Content-Length: 0

        ]]></send>
          <pause milliseconds="\(holdMilliseconds)"/>
          <send retrans="500"><![CDATA[
        BYE [next_url] SIP/2.0
        Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
        [routes]
        From: <sip:[field0]@[field1]>;tag=[call_number]
        [last_To:]
        Call-ID: [call_id]
        CSeq: 3 BYE
        Max-Forwards: 70
        Content-Length: 0

        ]]></send>
          <recv response="200"/>
        </scenario>
        """
    }
}
