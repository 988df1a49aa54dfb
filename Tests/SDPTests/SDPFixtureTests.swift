import Testing
@testable import SDP

/// Parses the Chromium 156 and aiortc 1.16 captures and checks values read off the files.
@Suite struct SDPFixtureTests {
    @Test(arguments: SDPFixtures.names)
    func parsesAndRoundTripsExactly(name: String) throws {
        let text = try SDPFixtures.text(name)
        let parsed = try SessionDescription(parsing: text)
        let output = parsed.serialized()
        #expect(output == text, "fixtures are CRLF, and so is our output")
        #expect(normalizedLineEndings(output) == normalizedLineEndings(text))
        #expect(try SessionDescription(parsing: output) == parsed)
        // The byte entry point and LF-only input give the same value.
        #expect(try SessionDescription(parsing: try SDPFixtures.bytes(name)) == parsed)
        #expect(try SessionDescription(parsing: normalizedLineEndings(text)) == parsed)
        // Every attribute decodes to the same line it came from, or is kept as `.other`.
        for attribute in parsed.attributes + parsed.media.flatMap(\.attributes) {
            if case .other = attribute.typed { continue }
            #expect(SDPAttributeValue.isKnown(attribute.name))
        }
    }

    @Test func chromiumAudioOffer() throws {
        let sdp = try SessionDescription(parsing: SDPFixtures.text("chromium-156-audio-offer.sdp"))
        #expect(sdp.origin.sessionID == 5_418_471_272_839_280_397)
        #expect(sdp.origin.sessionVersion == 2)
        #expect(sdp.sessionName == "-")
        #expect(sdp.timings == [SDPTiming(start: 0, stop: 0)])
        #expect(sdp.bundleGroups == [["0"]])
        #expect(sdp.extmapAllowMixed)
        #expect(sdp.msidSemantic == SDPMSIDSemantic(semantic: "WMS", identifiers: ["8aff9b53-e3af-416f-aea7-e88cf8a4b47e"]))
        #expect(sdp.media.count == 1)

        let audio = sdp.media[0]
        #expect(audio.mediaType == "audio")
        #expect(audio.port == 33000)
        #expect(audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.payloadTypes == [111, 63, 9, 0, 8, 13, 110, 126])
        #expect(audio.connections == [SDPConnection(address: "127.0.0.1")])
        #expect(audio.mid == "0")
        #expect(audio.direction == .sendrecv)
        #expect(audio.rtcpMux && audio.rtcpReducedSize)
        #expect(audio.rtcp == SDPRTCPAttribute(port: 9, connection: SDPConnection(address: "0.0.0.0")))
        #expect(audio.iceUfrag == "9C1q")
        #expect(audio.icePwd == "F4xtjhhaT7F9T1xGWdjRTQaH")
        #expect(audio.iceOptions == ["trickle"])
        #expect(audio.setup == .actpass)
        #expect(audio.rtpMap(for: 111) == SDPRTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(audio.rtpMap(for: 0) == SDPRTPMap(payloadType: 0, encodingName: "PCMU", clockRate: 8000))
        #expect(audio.rtpMaps.count == 8)
        let opusParameters = try #require(audio.formatParameters(for: 111))
        #expect(opusParameters.parameterString == "minptime=10;useinbandfec=1")
        #expect(opusParameters.parameter("useinbandfec") == "1")
        #expect(opusParameters.parameter("minptime") == "10")
        #expect(audio.formatParameters(for: 63)?.parameters.map(\.key) == ["111/111"])
        #expect(audio.rtcpFeedback(for: 111) == [SDPRTCPFeedback(payloadType: 111, type: "transport-cc")])
        #expect(audio.extmaps.map(\.id) == [1, 2, 3, 4])
        #expect(audio.extmaps[3].uri == "urn:ietf:params:rtp-hdrext:sdes:mid")
        #expect(audio.msids == [SDPMSID(streamID: "8aff9b53-e3af-416f-aea7-e88cf8a4b47e",
                                        trackID: "4b81f8c3-89ee-4ba1-bd32-0cfe18b7b3e2")])
        #expect(audio.ssrcs == [3_434_661_007])
        #expect(audio.ssrcAttributes.map(\.attribute) == ["cname", "msid"])
        #expect(audio.ssrcAttributes[0].value == "RWE+jBTPdnOJgijF")
        #expect(audio.ssrcAttributes[1].value
            == "8aff9b53-e3af-416f-aea7-e88cf8a4b47e 4b81f8c3-89ee-4ba1-bd32-0cfe18b7b3e2")
        #expect(audio.hasAttribute("rtcp-xr"))
        #expect(audio.attributes(named: "rtcp-xr").first?.typed == .other(name: "rtcp-xr", value: "rcvr-rtt=all"))
        #expect(!audio.endOfCandidates)

        let fingerprint = try #require(audio.fingerprints.first)
        #expect(fingerprint.hashFunction == "sha-256")
        #expect(fingerprint.bytes.count == 32)
        #expect(fingerprint.bytes.prefix(3) == [0x0D, 0x29, 0x8F])
        #expect(fingerprint.hexString.hasSuffix(":1D:1C:1D:9D"))

        let candidates = audio.candidates
        #expect(candidates.count == 2)
        #expect(candidates[0] == SDPCandidate(foundation: "3731152583", component: 1, transport: "udp",
                                              priority: 2_122_260_223, address: "127.0.0.1", port: 33000,
                                              type: .host, generation: 0, networkID: 1, networkCost: 50))
        #expect(candidates[1].isTCP)
        #expect(candidates[1].tcpType == .active)
        #expect(candidates[1].port == 9)
        #expect(candidates[1].priority == 1_518_280_447)
    }

    @Test func chromiumAudioVideoDataOfferAndAnswer() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.text("chromium-156-av-data-offer.sdp"))
        #expect(offer.bundleGroups == [["0", "1", "2"]])
        #expect(offer.media.map(\.mediaType) == ["audio", "video", "application"])
        #expect(offer.media.compactMap(\.mid) == ["0", "1", "2"])
        let video = offer.media[1]
        #expect(video.payloadTypes.count == 23)
        #expect(video.rtpMap(for: 96)?.encodingName == "VP8")
        #expect(video.rtpMap(for: 45)?.encodingName == "AV1")
        #expect(video.formatParameters(for: 97)?.parameter("apt") == "96")
        #expect(video.formatParameters(for: 108)?.parameter("profile-level-id") == "42e01f")
        #expect(video.rtcpFeedback(for: 96).map { [$0.type, $0.parameter ?? ""] }
            == [["goog-remb", ""], ["transport-cc", ""], ["ccm", "fir"], ["nack", ""], ["nack", "pli"]])
        #expect(video.extmaps.count == 11)
        #expect(video.extmaps.first == SDPExtmap(id: 14, uri: "urn:ietf:params:rtp-hdrext:toffset"))
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [1_267_639_214, 3_415_444_305])])
        #expect(video.ssrcs == [1_267_639_214, 3_415_444_305])
        let data = offer.media[2]
        #expect(data.proto == "UDP/DTLS/SCTP")
        #expect(data.formats == ["webrtc-datachannel"])
        #expect(data.payloadTypes.isEmpty)
        #expect(data.sctpPort == 5000)
        #expect(data.maxMessageSize == 262_144)
        #expect(data.candidates.count == 2)

        let answer = try SessionDescription(parsing: SDPFixtures.text("chromium-156-av-data-answer.sdp"))
        #expect(answer.bundleGroups == [["0", "1", "2"]])
        #expect(answer.media.allSatisfy { answer.setup(for: $0) == .active })
        #expect(answer.media[1].port == 9)
        #expect(answer.connection(for: answer.media[1]) == SDPConnection(address: "0.0.0.0"))
        #expect(answer.media[1].candidates.isEmpty)
        #expect(answer.media[0].candidates.count == 1)
        #expect(answer.iceUfrag(for: answer.media[2]) == "o8UP")
        #expect(answer.icePwd(for: answer.media[2]) == "w/x47Yg9dlZrKaSLOeoMUYyA")
        #expect(answer.bundleTransportMid(for: "2") == "0")
    }

    @Test func aiortcOfferAndAnswer() throws {
        let offer = try SessionDescription(parsing: SDPFixtures.text("aiortc-1.16-av-data-offer.sdp"))
        #expect(offer.origin.sessionID == 4_004_975_506)
        #expect(offer.origin.unicastAddress == "0.0.0.0")
        #expect(offer.bundleGroups == [["0", "1", "2"]])
        #expect(offer.msidSemantic == SDPMSIDSemantic(semantic: "WMS", identifiers: ["*"]))
        #expect(offer.media.map(\.port) == [33896, 34733, 34976])
        #expect(offer.media.allSatisfy { $0.endOfCandidates })
        #expect(offer.media.allSatisfy { $0.setup == .actpass })
        let audio = offer.media[0]
        #expect(audio.rtpMap(for: 96) == SDPRTPMap(payloadType: 96, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(audio.direction == .sendrecv)
        #expect(audio.fingerprints.map(\.hashFunction) == ["sha-256", "sha-384", "sha-512"])
        #expect(audio.fingerprints.map(\.bytes.count) == [32, 48, 64])
        let candidate = try #require(audio.candidates.first)
        #expect(candidate.foundation == "16572de626da4e5384a0ce2d0d93678a")
        #expect(candidate.priority == 2_130_706_431)
        #expect(candidate.port == 33896)
        #expect(candidate.generation == nil && candidate.extensions.isEmpty)
        #expect(offer.media[1].ssrcGroups.first?.semantics == "FID")
        #expect(offer.media[1].formatParameters(for: 98)?.parameter("apt") == "97")
        #expect(offer.media[1].extmaps.map(\.id) == [1, 3])
        #expect(offer.media[2].sctpPort == 5000)

        let answer = try SessionDescription(parsing: SDPFixtures.text("aiortc-1.16-av-data-answer.sdp"))
        #expect(answer.media[0].direction == .recvonly)
        #expect(answer.media[1].direction == .recvonly)
        #expect(answer.direction(for: answer.media[2]) == .sendrecv, "no direction attribute: the default")
        #expect(answer.media.allSatisfy { $0.setup == .active })
        #expect(answer.media.allSatisfy { $0.iceUfrag == "mA0b" })
        #expect(answer.media[0].fingerprints.first?.bytes.first == 0x42)
    }
}
