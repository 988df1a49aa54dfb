import Foundation
import ParleyTestSupport

/// sipp 3.6 UAS scenarios for a call the server places (`SIPDialedDialogInteropTests`): sipp
/// answers the server's INVITE and then sends requests in that dialog itself. The server's From
/// (with its tag), To and Contact are kept from the INVITE (`$peerfrom`, `$peerto`,
/// `$peercontact`); sipp's own tag is `[pid]SIPpTag01[call_number]`. The bodies are
/// `SIPDialogScenarios`'s SDP; the server's re-INVITEs are answered with its `answerServerReinvite`.
enum SIPDialedScenarios {
    typealias S = SIPDialogScenarios
    static let tag = "[pid]SIPpTag01[call_number]"

    /// The server's INVITE (which must say `Supported: timer`), 180, and a 200 from "the phone" at
    /// `sdpPort` with `headers`, then its ACK.
    static func answer(sdpPort: any CustomStringConvertible, headers: String = "", events: Bool = true) -> String {
        func response(_ status: String, body: String?) -> String {
            """
              <send\(body == nil ? "" : " retrans=\"500\"")><![CDATA[
                SIP/2.0 \(status)
                [last_Via:]
                [last_From:]
                [last_To:];tag=\(tag)
                [last_Call-ID:]
                [last_CSeq:]
                Contact: <sip:phone@[local_ip]:[local_port]>
                Allow: INVITE, ACK, BYE, CANCEL, INFO
                \(S.lines(headers + (body == nil ? "" : "\nContent-Type: application/sdp")))Content-Length: [len]

            \(body ?? "")
              ]]></send>
            """
        }
        return """
              <recv request="INVITE">
                <action>
                  <ereg regexp="timer" search_in="hdr" header="Supported:" check_it="true" assign_to="timer"/>
                  <ereg regexp=".*" search_in="hdr" header="From:" assign_to="peerfrom"/>
                  <ereg regexp=".*" search_in="hdr" header="To:" assign_to="peerto"/>
                  <ereg regexp="sip:[^>;]*" search_in="hdr" header="Contact:" assign_to="peercontact"/>
                </action>
              </recv>
            \(response("180 Ringing", body: nil))
            \(response("200 OK", body: S.sdp(port: sdpPort, direction: "sendrecv", version: 1, events: events)))
              <recv request="ACK"/>
            """
    }

    /// sipp's own request in the dialog, to the server's Contact.
    static func request(_ method: String, cseq: Int, body: String = "", contentType: String? = nil) -> String {
        """
          <send retrans="500"><![CDATA[
            \(method) [$peercontact] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
            From: [$peerto];tag=\(tag)
            To: [$peerfrom]
            Call-ID: [call_id]
            CSeq: \(cseq) \(method)
            Contact: <sip:phone@[local_ip]:[local_port]>
            Max-Forwards: 70
            \(S.lines(contentType.map { "Content-Type: \($0)" } ?? ""))Content-Length: [len]

        \(body)
          ]]></send>
        """
    }

    /// The ACK of the 2xx to sipp's re-INVITE `cseq`.
    static func ack(cseq: Int) -> String {
        request("ACK", cseq: cseq).replacingOccurrences(of: "<send retrans=\"500\">", with: "<send>")
    }

    /// sipp's re-INVITE with `direction` (the server's 200 must carry `expected`), and its ACK.
    static func reinvite(cseq: Int, sdpPort: any CustomStringConvertible, direction: String, version: Int,
                         expected: String, variable: String) -> String {
        request("INVITE", cseq: cseq, body: S.sdp(port: sdpPort, direction: direction, version: version), contentType: "application/sdp")
            + "<recv response=\"100\" optional=\"true\"/>" + S.expect200(expected, variable: variable) + ack(cseq: cseq)
    }

    static func scenario(_ name: String, _ body: String, variables: [String]) -> String {
        S.scenario(name, body, variables: ["timer", "peerfrom", "peerto", "peercontact"] + variables)
    }

    /// Runs sipp as a UAS with `scenario` on `port` (one call); the caller kills it.
    static func start(_ scenario: String, port: Int, dir: URL, timeout: Int = 60) throws -> ChildProcess {
        let file = dir.appendingPathComponent("uas-\(UUID().uuidString).xml")
        try scenario.replacingOccurrences(of: "[field0]", with: "phone").write(to: file, atomically: true, encoding: .utf8)
        return try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "-sf", file.path, "-i", "127.0.0.1", "-p", "\(port)", "-m", "1",
            "-mp", "\(try SIPTrunkInteropTests.freeUDPPort())", "-cp", "0", "-t", "u1",
            "-timeout", "\(timeout)", "-timeout_error", "-nostdin", "-trace_err", "-trace_msg",
            "-message_file", dir.appendingPathComponent("messages.log").path,
            "-error_file", dir.appendingPathComponent("errors.log").path,
        ])
    }
}
