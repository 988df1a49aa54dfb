import ParleyServer
import Testing

/// `parley-server`'s SIP flags: `--sip`, `--sip-tls` (which needs the TLS certificate), `--sip-realm`
/// and `--sip-request-rate`.
@Suite struct SIPFlagTests {
    @Test func sipFlagsParseAndWithoutThemThereIsNoSIP() throws {
        #expect(try ServerConfiguration.parse([]).sipHost == nil)
        let flags = try ServerConfiguration.parse(["--sip", "0.0.0.0:5070", "--sip-realm", "voice.example.com"])
        #expect(flags.sipHost == "0.0.0.0" && flags.sipPort == 5070 && flags.sipRealm == "voice.example.com" && flags.sipTLSHost == nil)
        #expect(try ServerConfiguration.parse(["--sip", ":5060"]).sipHost == "0.0.0.0")
        #expect(ServerConfiguration.usage.contains("--sip HOST:PORT") && ServerConfiguration.usage.contains("--sip-tls"))
    }

    @Test func theRequestRateLimitDefaultsTo50AndZeroTurnsItOff() throws {
        #expect(try ServerConfiguration.parse([]).sipRequestRate == 50)
        #expect(try ServerConfiguration.parse(["--sip-request-rate", "0"]).sipRequestRate == 0)
        #expect(try ServerConfiguration.parse(["--sip-request-rate", "20000"]).sipRequestRate == 20_000)
        #expect(ServerConfiguration.usage.contains("--sip-request-rate"))
    }

    @Test func mistakesAreRefusedWithAMessage() {
        for arguments in [["--sip", "nowhere"], ["--sip", "127.0.0.1:70000"], ["--sip-tls", "127.0.0.1:5061"],
                          ["--sip-realm", #"a"b"#], ["--sip"], ["--sip-request-rate", "-1"], ["--sip-request-rate", "many"]] {
            #expect(throws: ConfigurationError.self, "\(arguments)") { try ServerConfiguration.parse(arguments) }
        }
    }
}
