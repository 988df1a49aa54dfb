import ICE
import STUN
import Testing

@Suite struct CommonTypesTests {
    @Test func candidatePriorityFollowsRFC8445() {
        // (2^24)*126 + (2^8)*65535 + (256 - 1)
        #expect(ICECandidate.priority(type: .host, localPreference: 65535, component: 1) == 2_130_706_431)
        #expect(ICECandidate.priority(type: .srflx, localPreference: 65535, component: 1) == 1_694_498_815)
        #expect(ICECandidate.priority(type: .relay, localPreference: 0, component: 2) == 254)
        #expect(ICECandidate.priority(type: .prflx, localPreference: 1, component: 1) == 110 << 24 | 1 << 8 | 255)
    }

    @Test func pairPriorityFollowsRFC8445() {
        let a = ICECandidate(foundation: "1", priority: 10, address: addr("10.0.0.1", 1), type: .host)
        let b = ICECandidate(foundation: "2", priority: 20, address: addr("10.0.0.2", 2), type: .host)
        // G = controlling's candidate priority, D = controlled's.
        #expect(ICECandidatePair.priority(local: a, remote: b, role: .controlling) == (10 << 32) + 40 + 0)
        #expect(ICECandidatePair.priority(local: a, remote: b, role: .controlled) == (10 << 32) + 40 + 1)
    }

    @Test func foundationsGroupByTypeBaseAndServer() {
        let f = ICECandidate.foundation
        #expect(f(.host, "10.0.0.1", nil, .udp) == f(.host, "10.0.0.1", nil, .udp))
        #expect(f(.host, "10.0.0.1", nil, .udp) != f(.srflx, "10.0.0.1", nil, .udp))
        #expect(f(.srflx, "10.0.0.1", "1.1.1.1", .udp) != f(.srflx, "10.0.0.1", "2.2.2.2", .udp))
        #expect(f(.host, "10.0.0.1", nil, .udp) != f(.host, "10.0.0.1", nil, .tcp))
    }

    @Test func sdpCandidateRoundTrips() throws {
        let chrome = "candidate:842163049 1 udp 1677729535 198.51.100.7 61665 typ srflx raddr 192.168.1.5 rport 61665 generation 0 ufrag EsAw network-cost 999"
        let c = try #require(ICECandidate(sdpAttribute: "a=" + chrome))
        #expect(c.foundation == "842163049" && c.component == 1 && c.transport == .udp)
        #expect(c.priority == 1_677_729_535 && c.type == .srflx)
        #expect(c.address == addr("198.51.100.7", 61665))
        #expect(c.relatedAddress == addr("192.168.1.5", 61665))
        #expect(ICECandidate(sdpAttribute: c.sdpAttributeValue) == c)
        let tcp = try #require(ICECandidate(sdpAttribute: "candidate:1 1 TCP 2105524479 2001:db8::1 9 typ host tcptype active"))
        #expect(tcp.transport == .tcp && tcp.tcpType == .active && tcp.address.ipString == "2001:db8::1")
        #expect(tcp.sdpAttributeValue == "candidate:1 1 tcp 2105524479 2001:db8::1 9 typ host tcptype active")
    }

    @Test(arguments: [
        "", "candidate:", "candidate:1 1 udp 1 1.2.3.4 5 typ", "candidate:1 1 udp 1 abc.local 5 typ host",
        "candidate:1 0 udp 1 1.2.3.4 5 typ host", "candidate:1 1 sctp 1 1.2.3.4 5 typ host",
        "candidate:1 1 udp 1 1.2.3.4 70000 typ host", "candidate:1 1 udp 1 1.2.3.4 5 typ bogus",
        "candidate:1 1 udp 1 1.2.3.4 5 typ host raddr",
    ])
    func malformedSDPCandidatesAreRejected(_ text: String) {
        #expect(ICECandidate(sdpAttribute: text) == nil)
    }

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("::1", "::1"), ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("fe80::1%eth0", "fe80::1"), ("::ffff:192.0.2.1", "::ffff:c000:201"), ("[2001:db8::]", "2001:db8::"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("::", "::"),
    ])
    func ipTextParses(_ text: String, _ normalized: String) throws {
        let address = try #require(ICETransportAddress(text, port: 9))
        #expect(address.ipString == normalized)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.256", "1.2.3.4.5", "a.b.c.d", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::",
                      ":1::", "1:2:3:4:5:6:7::8:9", "::1.2.3", "01.2.3.4x"])
    func badIPTextIsRejected(_ text: String) {
        #expect(ICETransportAddress(text, port: 1) == nil)
    }

    @Test func addressHelpers() {
        #expect(addr("127.0.0.5", 1).isLoopback && addr("::1", 1).isLoopback && !addr("10.0.0.1", 1).isLoopback)
        #expect(addr("10.0.0.1", 1).isSameFamily(as: addr("1.1.1.1", 2)))
        #expect(!addr("10.0.0.1", 1).isSameFamily(as: addr("::1", 2)))
        #expect(addr("2001:db8::1", 443).description == "[2001:db8::1]:443")
        #expect(ICETransportAddress(addr("10.1.2.3", 4).stunAddress) == addr("10.1.2.3", 4))
        #expect(ICETransportAddress(ipBytes: [10, 1, 2, 3], port: 4) == addr("10.1.2.3", 4))
    }

    @Test func randomCredentialsAreValidAndReproducible() {
        var g1 = SeededGenerator(seed: 3)
        var g2 = SeededGenerator(seed: 3)
        let a = ICECredentials.random(using: &g1)
        #expect(a == ICECredentials.random(using: &g2))
        #expect(a.isValid && a.ufrag.count == 8 && a.pwd.count == 24)
        #expect(a != ICECredentials.random(using: &g1))
        #expect(!ICECredentials(ufrag: "abc", pwd: "0123456789012345678901").isValid)
        #expect(!ICECredentials(ufrag: "abcd", pwd: "short").isValid)
        #expect(!a.description.contains(a.pwd))
    }

    @Test func instantArithmetic() {
        let t = ICEInstant(nanoseconds: 1_500_000_000)
        #expect(t == ICEInstant.zero.advanced(by: .milliseconds(1500)))
        #expect(ICEInstant.zero.duration(to: t) == .milliseconds(1500))
        #expect(ICEInstant.zero < t)
    }
}
