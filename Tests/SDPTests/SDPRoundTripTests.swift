import Foundation
import Testing
@testable import SDP

@Suite struct SDPRoundTripTests {
    /// Every line type of RFC 8866 §5, LF-terminated and with tolerated irregularities.
    static let everyLineType = """
        v=0
        o=jdoe 2890844526 2890842807 IN IP4 10.47.16.5
        s=SDP Seminar
        i=A Seminar on the session description protocol
        u=http://www.example.com/seminars/sdp.pdf
        e=j.doe@example.com (Jane Doe)
        p=+1 617 555-6011
        c=IN IP4 224.2.17.12/127
        b=CT:1000
        t=2873397496 2873404696
        r=7d 1h 0 25h
        t=0 0
        z=2882844526 -1h 2898848070 0
        k=clear:secret
        a=recvonly
        a=ice-lite
        a=ice-ufrag:sessUfrag
        a=ice-pwd:sessionLevelPassword0123
        a=fingerprint:sha-256 AB:CD
        a=setup:passive
        a=extmap:7 urn:session-level
        a=x-unknown
        m=audio 49170/2 RTP/AVP 0
        i=media title
        c=IN IP4 224.2.17.12/127
        c=IN IP4 224.2.17.13/127
        b=AS:64
        k=prompt
        a=x-custom:with: colons
        m=video 51372 RTP/AVP 99
        a=rtpmap:99 h263-1998/90000
        a=sendonly
        a=ice-ufrag:medU
        a=extmap:7 urn:media-level
        a=extmap:8 urn:other
        m=application 0 UDP/DTLS/SCTP webrtc-datachannel

        """

    @Test func everyLineTypeParsesAndSerializesStably() throws {
        let sdp = try SessionDescription(parsing: Self.everyLineType)
        #expect(sdp.origin == SDPOrigin(username: "jdoe", sessionID: 2_890_844_526, sessionVersion: 2_890_842_807,
                                        unicastAddress: "10.47.16.5"))
        #expect(sdp.information == "A Seminar on the session description protocol")
        #expect(sdp.uri == "http://www.example.com/seminars/sdp.pdf")
        #expect(sdp.emails == ["j.doe@example.com (Jane Doe)"])
        #expect(sdp.phoneNumbers == ["+1 617 555-6011"])
        #expect(sdp.connection?.address == "224.2.17.12/127")
        #expect(sdp.bandwidths == [SDPBandwidth(type: "CT", value: 1000)])
        #expect(sdp.timings.count == 2)
        #expect(sdp.timings[0].repeats == [SDPRepeatTimes(interval: "7d", activeDuration: "1h", offsets: ["0", "25h"])])
        #expect(sdp.timeZoneAdjustments == [SDPTimeZoneAdjustment(time: 2_882_844_526, offset: "-1h"),
                                           SDPTimeZoneAdjustment(time: 2_898_848_070, offset: "0")])
        #expect(sdp.iceLite)
        #expect(sdp.media.count == 3)
        let audio = sdp.media[0]
        #expect(audio.port == 49170 && audio.portCount == 2)
        #expect(audio.information == "media title")
        #expect(audio.connections.count == 2)
        #expect(audio.bandwidths == [SDPBandwidth(type: "AS", value: 64)])
        #expect(audio.attributes == [SDPAttribute(name: "x-custom", value: "with: colons")])
        #expect(sdp.media[2].isRejected)

        let output = sdp.serialized()
        #expect(!output.contains("k="), "k= is accepted and dropped")
        let expected = Self.everyLineType.replacingOccurrences(of: "k=clear:secret\n", with: "")
            .replacingOccurrences(of: "k=prompt\n", with: "")
        #expect(normalizedLineEndings(output) == expected, "only the k= lines are gone")
        #expect(try SessionDescription(parsing: output) == sdp)
        #expect(try SessionDescription(parsing: output).serialized() == output)
    }

    @Test func sessionLevelValuesAreInherited() throws {
        let sdp = try SessionDescription(parsing: Self.everyLineType)
        let audio = sdp.media[0], video = sdp.media[1]
        #expect(sdp.iceUfrag(for: audio) == "sessUfrag")
        #expect(sdp.iceUfrag(for: video) == "medU")
        #expect(sdp.icePwd(for: video) == "sessionLevelPassword0123")
        #expect(sdp.fingerprints(for: audio) == [SDPFingerprint(hashFunction: "sha-256", bytes: [0xAB, 0xCD])])
        #expect(sdp.setup(for: video) == .passive)
        #expect(sdp.direction(for: audio) == .recvonly)
        #expect(sdp.direction(for: video) == .sendonly)
        #expect(sdp.connection(for: audio)?.address == "224.2.17.12/127")
        #expect(sdp.connection(for: video) == sdp.connection)
        #expect(sdp.extmaps(for: video).map(\.uri) == ["urn:media-level", "urn:other"])
        #expect(sdp.extmaps(for: audio).map(\.uri) == ["urn:session-level"])
        #expect(sdp.iceOptions(for: audio).isEmpty)
        #expect(!sdp.extmapAllowMixed(for: audio))
    }

    /// Firefox-style: fingerprint, ice-options and msid-semantic at session level; simulcast/rid.
    @Test func firefoxStyleSessionLevelTransport() throws {
        let text = """
            v=0
            o=mozilla...THIS_IS_SDPARTA-99.0 7174318011218399123 0 IN IP4 0.0.0.0
            s=-
            t=0 0
            a=fingerprint:sha-256 0D:29:8F:CE:A9:80:F4:05:CF:09:00:3E:39:87:F9:1C:8C:B8:D5:99:A4:76:7C:44:65:5D:CE:D3:1D:1C:1D:9D
            a=group:BUNDLE 0 1
            a=ice-options:trickle
            a=msid-semantic:WMS *
            m=audio 9 UDP/TLS/RTP/SAVPF 109 101
            c=IN IP4 0.0.0.0
            a=sendrecv
            a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
            a=extmap:3/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level
            a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1
            a=fmtp:101 0-15
            a=ice-pwd:3b84ffe9cdbc3a3b8e9b3e0e3c7a7c09
            a=ice-ufrag:6d1a0a2b
            a=mid:0
            a=msid:{f2b3c7d0-0000-4000-8000-000000000001} {a1b2c3d4-0000-4000-8000-000000000002}
            a=rtcp-mux
            a=rtpmap:109 opus/48000/2
            a=rtpmap:101 telephone-event/8000
            a=setup:actpass
            a=ssrc:3027913512 cname:{3f6d2e5c-0000-4000-8000-000000000003}
            m=video 9 UDP/TLS/RTP/SAVPF 120
            c=IN IP4 0.0.0.0
            a=sendonly
            a=ice-pwd:3b84ffe9cdbc3a3b8e9b3e0e3c7a7c09
            a=ice-ufrag:6d1a0a2b
            a=mid:1
            a=rid:h send
            a=rid:l send
            a=rtcp-fb:120 nack
            a=rtpmap:120 VP8/90000
            a=setup:actpass
            a=simulcast:send h;l

            """
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.origin.username == "mozilla...THIS_IS_SDPARTA-99.0")
        #expect(sdp.media.allSatisfy { $0.fingerprints.isEmpty && $0.iceOptions.isEmpty })
        #expect(sdp.media.allSatisfy { sdp.fingerprints(for: $0).first?.bytes.count == 32 })
        #expect(sdp.media.allSatisfy { sdp.iceOptions(for: $0) == ["trickle"] })
        let audio = sdp.media[0], video = sdp.media[1]
        #expect(audio.formatParameters(for: 109)?.parameter("stereo") == "1")
        #expect(audio.extmaps.last == SDPExtmap(id: 3, direction: .recvonly, uri: "urn:ietf:params:rtp-hdrext:csrc-audio-level"))
        #expect(audio.msids.first?.streamID == "{f2b3c7d0-0000-4000-8000-000000000001}")
        #expect(video.attributes(named: "rid").compactMap(\.value) == ["h send", "l send"])
        #expect(video.attributeValue("simulcast") == "send h;l")
        #expect(sdp.direction(for: video) == .sendonly)
        #expect(normalizedLineEndings(sdp.serialized()) == text)
    }

    @Test func lenientWhereBrowsersAre() throws {
        // Bare LF, no final newline, trailing spaces on structured lines, extra spaces between
        // fields, media lines out of RFC order, a stray value on a property attribute.
        let text = "v=0 \no=-  1 2 IN IP4 0.0.0.0\ns=\nt=0 0\nm=audio 9 RTP/AVP  0 8\na=rtcp-mux:yes\nb=AS:30\nc=IN IP4 0.0.0.0"
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.sessionName.isEmpty)
        #expect(sdp.media[0].formats == ["0", "8"])
        #expect(sdp.media[0].rtcpMux)
        #expect(sdp.media[0].bandwidths.count == 1 && sdp.media[0].connections.count == 1)
        let output = sdp.serialized()
        #expect(output.hasSuffix("m=audio 9 RTP/AVP 0 8\r\nc=IN IP4 0.0.0.0\r\nb=AS:30\r\na=rtcp-mux:yes\r\n"))
        #expect(try SessionDescription(parsing: output) == sdp)
    }

    @Test func builtDescriptionRoundTrips() throws {
        var audio = MediaDescription(mediaType: "audio", port: 9, proto: "UDP/TLS/RTP/SAVPF", formats: ["111"],
                                     connections: [SDPConnection(address: "0.0.0.0")])
        audio.attributes = [
            .init(.mid("0")), .init(.direction(.sendrecv)), .init(.rtcpMux),
            .init(.iceUfrag("abcd")), .init(.icePwd("abcdefghijklmnopqrstuv")),
            .init(.fingerprint(SDPFingerprint(hashFunction: "sha-256", bytes: Array(0..<32)))),
            .init(.setup(.actpass)),
            .init(.rtpmap(SDPRTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))),
            .init(.fmtp(SDPFormatParameters(payloadType: 111, parameterString: "minptime=10;useinbandfec=1"))),
            .init(.candidate(SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "192.0.2.1",
                                          port: 50000, type: .host))),
            .init(.endOfCandidates),
        ]
        let sdp = SessionDescription(origin: SDPOrigin(sessionID: 42, sessionVersion: 1),
                                     attributes: [.init(.group(SDPGroup(semantics: "BUNDLE", mids: ["0"])))],
                                     media: [audio])
        let text = sdp.serialized()
        #expect(text.hasPrefix("v=0\r\no=- 42 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=audio 9 "))
        let parsed = try SessionDescription(parsing: text)
        #expect(parsed == sdp)
        #expect(parsed.media[0].candidates.first?.port == 50000)
        #expect(parsed.bundleTransportMid(for: "0") == "0")
        #expect(parsed.media(withMid: "0") == audio)
        var bytes: [UInt8] = []
        sdp.serialize(into: &bytes)
        #expect(bytes == Array(text.utf8))
    }

    /// A deterministic stand-in for the fuzzer: truncations and byte substitutions of every fixture
    /// must either fail with a typed error or parse, serialize and re-parse to the same value.
    @Test(arguments: SDPFixtures.names)
    func mutationsNeverCrashAndAreStable(name: String) throws {
        let original = try SDPFixtures.bytes(name)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let interesting: [UInt8] = [0x00, 0x0A, 0x0D, 0x20, 0x3A, 0x2F, 0x3D, 0x61, 0x6D, 0x39, 0xFF, 0xC3]
        for round in 0..<400 {
            var bytes = original
            if round % 4 == 0 {
                bytes = Array(bytes.prefix(next() % (bytes.count + 1)))
            } else {
                for _ in 0..<(1 + next() % 4) {
                    bytes[next() % bytes.count] = interesting[next() % interesting.count]
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let parsed = try? SessionDescription(parsing: text) else { continue }
            let output = parsed.serialized()
            let reparsed = try SessionDescription(parsing: output)
            #expect(reparsed == parsed, "round \(round)")
            #expect(reparsed.serialized() == output)
            _ = parsed.media.map { ($0.candidates, $0.rtpMaps, $0.extmaps, $0.fingerprints, $0.ssrcAttributes) }
        }
    }
}
