import ParleyServer
import SIPGateway
import Testing

/// `--sip-trunk` (named, repeatable, the older `HOST:PORT`) and `--sip-trunk-credentials`.
@Suite struct SIPTrunkFlagTests {
    @Test func namedTrunksWithCredentialsAndTheOlderForm() throws {
        let flags = try ServerConfiguration.parse([
            "--sip-trunk", "carrier=sip:sip.carrier.example:5080", "--sip-trunk", "pbx=sip:10.0.0.5;transport=tcp",
            "--sip-trunk", "sbc=sips:[2001:db8::1]", "--sip-trunk-credentials", "carrier=AC123:pa:ss",
        ])
        #expect(flags.sipTrunks == [
            SIPTrunk(name: "carrier", host: "sip.carrier.example", port: 5080, username: "AC123", password: "pa:ss"),
            SIPTrunk(name: "pbx", host: "10.0.0.5", port: 5060, transport: "tcp"),
            SIPTrunk(name: "sbc", host: "2001:db8::1", port: 5061, transport: "tls"),
        ])
        #expect(try ServerConfiguration.parse(["--sip-trunk", "127.0.0.1:5070"]).sipTrunks == [SIPTrunk(name: "default", host: "127.0.0.1", port: 5070)])
        #expect(ServerConfiguration.usage.contains("--sip-trunk-credentials") && ServerConfiguration.usage.contains("--sip-tls-ca"))
        #expect(try ServerConfiguration.parse(["--sip-tls-ca", "/etc/ca.pem"]).sipTLSTrustRoots == "/etc/ca.pem")
    }

    @Test func aNumberAtEachKindOfTrunk() {
        #expect(SIPTrunk(name: "a", host: "127.0.0.1", port: 5070).address(forNumber: "+15551234567") == "sip:+15551234567@127.0.0.1:5070;user=phone")
        #expect(SIPTrunk(name: "b", host: "pbx.example", port: 5060, transport: "tcp").address(forNumber: "100")
                == "sip:100@pbx.example:5060;user=phone;transport=tcp")
        #expect(SIPTrunk(name: "c", host: "2001:db8::1", port: 5061, transport: "tls").address(forNumber: "+1")
                == "sips:+1@[2001:db8::1]:5061;user=phone")
    }

    @Test func mistakesAreRefusedWithAMessage() {
        for arguments in [["--sip-trunk", "nowhere"], ["--sip-trunk", "x=sip:bob@host"], ["--sip-trunk", "x=http://host"],
                          ["--sip-trunk", "bad name=sip:host"], ["--sip-trunk", "x=sip:host;transport=sctp"],
                          ["--sip-trunk", "x=sip:host?X-A=b"], ["--sip-trunk", "x=sip:a", "--sip-trunk", "x=sip:b"],
                          ["--sip-trunk-credentials", "x=u:p"], ["--sip-trunk", "x=sip:a", "--sip-trunk-credentials", "x=u"],
                          ["--sip-trunk", "x=sip:a", "--sip-trunk-credentials", "x=:p"]] {
            #expect(throws: ConfigurationError.self, "\(arguments)") { try ServerConfiguration.parse(arguments) }
        }
    }
}
