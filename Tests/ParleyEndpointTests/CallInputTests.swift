@testable import ParleyEndpoint
import SIPWire
import Testing

/// What `Outgoing.call(_:headers:)` takes before anything is sent: custom headers checked as
/// Plivo's SDKs check them, destinations read as SIP URIs, numbers or identities.
@Suite struct EndpointCallInputTests {
    @Test func customHeadersAreCheckedLikePlivos() throws {
        let ok = try ExtraHeaders.validated(["X-PH-Ticket": "T-42", "X-Foo": "a.b_c%20+d@e:f"])
        #expect(ok.map(\.name) == ["X-Foo", "X-PH-Ticket"])
        let refused: [[String: String]] = [
            ["Foo": "bar"],                                        // not X-
            ["X-": "bar"],                                         // no name after X-
            ["X-" + String(repeating: "a", count: 25): "v"],      // name over 24 after X-
            ["X-Bad_Name": "v"],                                   // _ in a name
            ["X-Empty": ""],                                       // empty value
            ["X-Long": String(repeating: "v", count: 49)],         // value over 48
            ["X-Inject": "a\r\nVia: evil"],                        // line break
            ["X-Space": "a b"],                                    // space
            Dictionary(uniqueKeysWithValues: (0..<17).map { ("X-H\($0)", "v") }),  // over 16 headers
        ]
        for headers in refused {
            #expect(throws: EndpointError.self, "\(headers.keys.sorted())") { try ExtraHeaders.validated(headers) }
            do { _ = try ExtraHeaders.validated(headers) } catch {
                #expect(error.code == EndpointError.invalidArgument)
                #expect(!error.reason.isEmpty)
            }
        }
        #expect(try ExtraHeaders.validated(["X-" + String(repeating: "a", count: 24): String(repeating: "v", count: 48)]).count == 1)
    }

    @Test func receivedXHeadersAreKeptAsSent() {
        var headers = SIPHeaders()
        headers.add("X-PH-Ticket", "T-42")
        headers.add("Subject", "not custom")
        headers.add("x-lower", "yes")
        #expect(ExtraHeaders.received(in: headers) == ["X-PH-Ticket": "T-42", "x-lower": "yes"])
    }

    @Test func destinationsBecomeSIPURIs() throws {
        let domain = try SIPURI(parsing: "sip:pbx.example.com:5070")
        #expect(try Destination.uri("sip:bob@other.example", domain: domain).description == "sip:bob@other.example")
        #expect(try Destination.uri("sips:bob@other.example", domain: domain).description == "sips:bob@other.example")
        #expect(try Destination.uri("bob@other.example", domain: domain).description == "sip:bob@other.example")
        #expect(try Destination.uri("bob", domain: domain).description == "sip:bob@pbx.example.com:5070")
        #expect(try Destination.uri("+1 (555) 123-4567", domain: domain).description == "sip:+15551234567@pbx.example.com:5070;user=phone")
        // URI headers go through `headers:`, where they are checked.
        #expect(try Destination.uri("sip:bob@x.example?X-Foo=bar", domain: domain).headers.isEmpty)
        for bad in ["", "sip:", "sip:@host", "bob smith", "bob<script>", "+", String(repeating: "a", count: 300)] {
            #expect(throws: EndpointError.self, "\(bad)") { try Destination.uri(bad, domain: domain) }
        }
    }

    @Test func optionsAreCheckedWhenTheEndpointIsMade() throws {
        let settings = try UserAgentSettings(EndpointOptions(registrar: "127.0.0.1:5080", transport: .tcp))
        #expect(settings.registrarURI.port == 5080)
        #expect(settings.localAddress == "127.0.0.1")
        let tls = try UserAgentSettings(EndpointOptions(registrar: "sips:127.0.0.1", transport: .tls))
        #expect("\(tls.registrarAddress)".hasSuffix(":5061"))
        for options in [EndpointOptions(registrar: "sip:alice@127.0.0.1"), EndpointOptions(registrar: "sips:127.0.0.1"),
                        EndpointOptions(registrar: "sip:127.0.0.1", maxAverageBitrate: 7_999),
                        EndpointOptions(registrar: "sip:127.0.0.1", localAddress: "not-an-ip")] {
            #expect(throws: EndpointError.self, "\(options.registrar)") { try UserAgentSettings(options) }
        }
    }

    @Test func loginInputIsChecked() throws {
        #expect(try Endpoint.checkLogin(username: "alice", password: "pw", regTimeout: 120) == 120)
        #expect(try Endpoint.checkLogin(username: "alice", password: "pw", regTimeout: 2_592_000) == 2_592_000)
        for (user, password, timeout) in [("alice", "pw", 119), ("alice", "pw", 2_592_001), ("", "pw", 600), ("a b", "pw", 600),
                                          ("alice", "", 600), ("al@ice", "pw", 600)] {
            #expect(throws: EndpointError.self) { try Endpoint.checkLogin(username: user, password: password, regTimeout: timeout) }
        }
    }
}
