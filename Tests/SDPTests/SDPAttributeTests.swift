import Testing
@testable import SDP

@Suite struct SDPCandidateTests {
    @Test func trickledHostCandidate() throws {
        let text = "candidate:3731152583 1 udp 2122260223 127.0.0.1 33000 typ host generation 0 ufrag 9C1q network-id 1 network-cost 50"
        let c = try SDPCandidate(parsing: text)
        #expect(c.foundation == "3731152583")
        #expect(c.component == 1)
        #expect(c.transport == "udp")
        #expect(c.type == .host)
        #expect(c.ufrag == "9C1q")
        #expect(c.networkCost == 50)
        #expect(c.candidateString == text)
        #expect(try SDPCandidate(parsing: "a=" + text + "\r\n") == c)
        #expect(SDPAttribute(.candidate(c)).description == "a=" + text)
    }

    @Test func relayCandidateWithRelatedAddressAndUnknownExtensions() throws {
        let text = "candidate:842163049 1 UDP 1677729535 203.0.113.7 61665 typ relay raddr 198.51.100.2 rport 3478 "
            + "generation 2 x-vendor abc network-id 3 foo bar"
        let c = try SDPCandidate(parsing: text)
        #expect(c.transport == "UDP" && !c.isTCP)
        #expect(c.type == .relay)
        #expect(c.relatedAddress == "198.51.100.2")
        #expect(c.relatedPort == 3478)
        #expect(c.generation == 2)
        #expect(c.networkID == 3)
        #expect(c.extensions == [.init(name: "x-vendor", value: "abc"), .init(name: "foo", value: "bar")])
        // Canonical order puts the typed extensions first; re-parsing gives the same value.
        #expect(try SDPCandidate(parsing: c.candidateString) == c)
    }

    @Test func mdnsAndIPv6Addresses() throws {
        let mdns = try SDPCandidate(parsing: "candidate:1 1 udp 2122262783 4d3e1a2b-aaaa-bbbb-cccc-0123456789ab.local 50000 typ host")
        #expect(mdns.address.hasSuffix(".local"))
        let v6 = try SDPCandidate(parsing: "candidate:2 2 tcp 1518283007 2001:db8::1 9 typ host tcptype passive")
        #expect(v6.address == "2001:db8::1" && v6.component == 2 && v6.tcpType == .passive)
    }

    @Test func danglingExtensionNameIsIgnoredLikeChromium() throws {
        let c = try SDPCandidate(parsing: "candidate:1 1 udp 1 1.2.3.4 9 typ host generation")
        #expect(c.generation == nil && c.extensions.isEmpty)
    }

    @Test func builtCandidateRoundTrips() throws {
        let c = SDPCandidate(foundation: "abc+/", priority: 1, address: "10.0.0.1", port: 5000, type: .srflx,
                             relatedAddress: "0.0.0.0", relatedPort: 0, generation: 0)
        #expect(c.candidateString == "candidate:abc+/ 1 udp 1 10.0.0.1 5000 typ srflx raddr 0.0.0.0 rport 0 generation 0")
        #expect(try SDPCandidate(parsing: c.candidateString) == c)
    }
}

@Suite struct SDPAttributeTests {
    @Test func fmtpParameters() throws {
        let f = try SDPFormatParameters(parsing: "99 level-asymmetry-allowed=1; packetization-mode=1 ;profile-level-id=42001f")
        #expect(f.payloadType == 99)
        #expect(f.parameters.map(\.key) == ["level-asymmetry-allowed", "packetization-mode", "profile-level-id"])
        #expect(f.parameter("PROFILE-LEVEL-ID") == "42001f")
        #expect(f.parameter("missing") == nil)
        let empty = try SDPFormatParameters(parsing: "111")
        #expect(empty.parameterString.isEmpty && empty.parameters.isEmpty)
        #expect(SDPFormatParameters(payloadType: 97, parameterString: "apt=96").sdpValue == "97 apt=96")
    }

    @Test func extmapWithDirectionAndAttributes() throws {
        let e = try SDPExtmap(parsing: "4096/sendonly urn:ietf:params:rtp-hdrext:encrypt urn:x attr")
        #expect(e.id == 4096)
        #expect(e.direction == .sendonly)
        #expect(e.uri == "urn:ietf:params:rtp-hdrext:encrypt")
        #expect(e.attributes == "urn:x attr")
        #expect(SDPAttribute(.extmap(e)).value == "4096/sendonly urn:ietf:params:rtp-hdrext:encrypt urn:x attr")
    }

    @Test func rtcpFeedbackWildcard() throws {
        let fb = try SDPRTCPFeedback(parsing: "* ccm fir")
        #expect(fb.payloadType == nil && fb.type == "ccm" && fb.parameter == "fir")
        #expect(fb.sdpValue == "* ccm fir")
        let trr = try SDPRTCPFeedback(parsing: "96 trr-int 100")
        #expect(trr.parameter == "100")
    }

    @Test func fingerprintAcceptsLowercaseAndKeepsTheOriginalText() throws {
        let lower = "sha-256 0d:29:8f:ce:a9:80:f4:05:cf:09:00:3e:39:87:f9:1c:8c:b8:d5:99:a4:76:7c:44:65:5d:ce:d3:1d:1c:1d:9d"
        let f = try SDPFingerprint(parsing: lower)
        #expect(f.bytes.count == 32 && f.bytes.last == 0x9D)
        #expect(f.hexString.hasPrefix("0D:29:8F"))
        let sdp = try SessionDescription(parsing: "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\na=fingerprint:\(lower)\n")
        #expect(sdp.fingerprints == [f])
        #expect(sdp.serialized().contains("a=fingerprint:\(lower)\r\n"))
        #expect(throws: SDPParseError.self) { try SDPFingerprint(parsing: "sha-256 0D:") }
        #expect(throws: SDPParseError.self) { try SDPFingerprint(parsing: "sha-256 0D::29") }
    }

    @Test func typedValuesMatchTheirLines() throws {
        let pairs: [(SDPAttributeValue, String)] = [
            (.group(SDPGroup(semantics: "BUNDLE", mids: ["0", "1"])), "a=group:BUNDLE 0 1"),
            (.mid("audio"), "a=mid:audio"),
            (.rtcpMux, "a=rtcp-mux"),
            (.rtcpReducedSize, "a=rtcp-rsize"),
            (.iceUfrag("9C1q"), "a=ice-ufrag:9C1q"),
            (.icePwd("F4xtjhhaT7F9T1xGWdjRTQaH"), "a=ice-pwd:F4xtjhhaT7F9T1xGWdjRTQaH"),
            (.iceOptions(["trickle", "renomination"]), "a=ice-options:trickle renomination"),
            (.iceLite, "a=ice-lite"),
            (.fingerprint(SDPFingerprint(hashFunction: "sha-256", bytes: [0xAB, 0x01])), "a=fingerprint:sha-256 AB:01"),
            (.setup(.holdconn), "a=setup:holdconn"),
            (.rtpmap(SDPRTPMap(payloadType: 0, encodingName: "PCMU", clockRate: 8000)), "a=rtpmap:0 PCMU/8000"),
            (.fmtp(SDPFormatParameters(payloadType: 63, parameterString: "111/111")), "a=fmtp:63 111/111"),
            (.rtcpFeedback(SDPRTCPFeedback(payloadType: 96, type: "nack", parameter: "pli")), "a=rtcp-fb:96 nack pli"),
            (.extmap(SDPExtmap(id: 3, uri: "urn:x")), "a=extmap:3 urn:x"),
            (.ssrc(SDPSSRCAttribute(ssrc: 1, attribute: "msid", value: "s t")), "a=ssrc:1 msid:s t"),
            (.ssrcGroup(SDPSSRCGroup(semantics: "FID", ssrcs: [1, 2])), "a=ssrc-group:FID 1 2"),
            (.msid(SDPMSID(streamID: "-", trackID: "t")), "a=msid:- t"),
            (.msidSemantic(SDPMSIDSemantic(semantic: "WMS", identifiers: ["*"])), "a=msid-semantic:WMS *"),
            (.endOfCandidates, "a=end-of-candidates"),
            (.direction(.inactive), "a=inactive"),
            (.sctpPort(5000), "a=sctp-port:5000"),
            (.maxMessageSize(0), "a=max-message-size:0"),
            (.rtcp(SDPRTCPAttribute(port: 9)), "a=rtcp:9"),
            (.extmapAllowMixed, "a=extmap-allow-mixed"),
            (.other(name: "rid", value: "h send"), "a=rid:h send"),
            (.other(name: "simulcast", value: "send h;m;l"), "a=simulcast:send h;m;l"),
        ]
        for (typed, line) in pairs {
            let attribute = SDPAttribute(typed)
            #expect(attribute.description == line)
            #expect(attribute.typed == typed, "\(line)")
        }
    }

    @Test func directionHelpers() {
        #expect(SDPDirection.sendonly.reversed == .recvonly)
        #expect(SDPDirection.sendrecv.sends && SDPDirection.sendrecv.receives)
        #expect(!SDPDirection.inactive.sends && !SDPDirection.recvonly.sends)
    }

    @Test func malformedHandBuiltAttributeDecodesAsOther() {
        let attribute = SDPAttribute(name: "rtpmap", value: "garbage")
        #expect(attribute.typed == .other(name: "rtpmap", value: "garbage"))
        let section = MediaDescription(mediaType: "audio", port: 9, proto: "RTP/AVP", formats: ["0"], attributes: [attribute])
        #expect(section.rtpMaps.isEmpty)
    }
}
