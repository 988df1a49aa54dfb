import SDP
import Testing

/// RFC 8851 `a=rid` and RFC 8853 `a=simulcast`, with the RFCs' own examples and Chromium's form.
@Suite struct SDPSimulcastTests {
    @Test func rfc8851RIDWithRestrictions() throws {
        let rid = try SDPRID(parsing: "1 send pt=97,98;max-width=1280;max-height=720")
        #expect(rid.id == "1" && rid.direction == .send && rid.payloadTypes == [97, 98])
        #expect(rid.restrictions.map(\.name) == ["max-width", "max-height"])
        #expect(rid.restrictions.map(\.value) == ["1280", "720"])
        #expect(rid.sdpValue == "1 send pt=97,98;max-width=1280;max-height=720")
        #expect(try SDPRID(parsing: rid.sdpValue) == rid)
        #expect(try SDPRID(parsing: "q send") == SDPRID(id: "q", direction: .send))
        #expect(try SDPRID(parsing: "hi_res-2 recv depend=lo").restrictions.first?.value == "lo")
    }

    @Test(arguments: ["", "q", "q sideways", "q! send", "q send pt=", "q send pt=300", "q send pt=1;pt=2",
                      "q send pt=a", String(repeating: "r", count: 256) + " send"])
    func rfc8851MalformedRIDsAreRefused(_ value: String) {
        #expect(throws: SDPParseError.self) { try SDPRID(parsing: value) }
    }

    @Test func rfc8853SimulcastLists() throws {
        let s = try SDPSimulcast(parsing: "send 1,~4;2;3 recv c")
        #expect(s.send.map { $0.map(\.rid) } == [["1", "4"], ["2"], ["3"]])
        #expect(s.send[0][1].paused && !s.send[0][0].paused)
        #expect(s.receive == [[.init(rid: "c")]])
        #expect(s.sdpValue == "send 1,~4;2;3 recv c")
        let chromium = try SDPSimulcast(parsing: "send q;h;f")
        #expect(chromium.send.map { $0.map(\.rid) } == [["q"], ["h"], ["f"]] && chromium.receive.isEmpty)
        #expect(try SDPSimulcast(parsing: "recv 1;2 send 3").send == [[.init(rid: "3")]])
    }

    @Test(arguments: ["", "send", "send q;;h", "send q recv h send f", "send q send h", "up q", "send ~", "send q,"])
    func rfc8853MalformedSimulcastIsRefused(_ value: String) {
        #expect(throws: SDPParseError.self) { try SDPSimulcast(parsing: value) }
    }

    @Test func aSectionsRIDsAndSimulcastAreRead() throws {
        let sdp = """
            v=0\r
            o=- 1 2 IN IP4 127.0.0.1\r
            s=-\r
            t=0 0\r
            m=video 9 UDP/TLS/RTP/SAVPF 96\r
            c=IN IP4 0.0.0.0\r
            a=mid:1\r
            a=sendonly\r
            a=rtpmap:96 VP8/90000\r
            a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r
            a=rid:q send\r
            a=rid:h send\r
            a=rid:f send\r
            a=rid:bad! send\r
            a=simulcast:send q;h;f\r

            """
        let parsed = try SessionDescription(parsing: sdp)
        let video = try #require(parsed.media.first)
        #expect(video.rids.map(\.id) == ["q", "h", "f"], "a malformed rid is skipped")
        #expect(video.simulcast?.send.count == 3)
        #expect(try SessionDescription(parsing: parsed.serialized()).media.first?.rids == video.rids)
    }
}
