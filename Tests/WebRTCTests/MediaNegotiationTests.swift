import ICE
import ParleyCrypto
import ParleyRTP
import SDP
import Testing
@testable import WebRTC

/// Several m-sections (RFC 8829 §5.3.1, RFC 8843 BUNDLE): audio and video accepted on one
/// transport, everything else rejected with port 0 in the offer's order.
@Suite struct MediaNegotiationTests {
    func videoParameters() -> AnswerParameters {
        var parameters = testParameters()
        parameters.videoSSRC = 0x0B0B_0B0B
        return parameters
    }

    /// An offer of `sections` (already-written m-sections) with a BUNDLE group of `bundle`.
    func offer(bundle: [String], _ sections: String...) -> String {
        var text = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        if !bundle.isEmpty { text += "a=group:BUNDLE \(bundle.joined(separator: " "))\r\n" }
        return text + sections.joined()
    }

    func section(_ type: String, mid: String, formats: String, _ lines: String, port: Int = 9) -> String {
        "m=\(type) \(port) UDP/TLS/RTP/SAVPF \(formats)\r\nc=IN IP4 127.0.0.1\r\na=mid:\(mid)\r\n"
            + "a=ice-ufrag:cliU\r\na=ice-pwd:clientpassword0123456789\r\na=fingerprint:\(testFingerprint.sdpValue)\r\n"
            + "a=setup:actpass\r\na=rtcp-mux\r\n" + lines
    }

    let opus = "a=rtpmap:111 opus/48000/2\r\n"
    let vp8 = "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack pli\r\na=rtcp-fb:96 ccm fir\r\na=rtcp-fb:96 transport-cc\r\n"

    @Test func chromiumAudioVideoDataOfferGetsAudioAndVideoBundled() throws {
        let offer = try MediaOffer(offer: try Fixtures.text("chromium-156-av-data-offer.sdp"), videoCodecs: VideoCodec.allCases)
        #expect(offer.sections.map(\.isAccepted) == [true, true, false])
        let video = try #require(offer.video)
        #expect(video.codec == .video(.vp8) && video.payloadType == 96 && video.index == 1)
        #expect(offer.bundleMids == ["0", "1"])
        #expect(offer.payloadFormats(telephoneEvent: false).map(\.payloadType) == [111, 63, 96])

        let answer = try SessionDescription(parsing: ServerAnswerBuilder.answer(to: offer, parameters: videoParameters())
            .serialized())
        #expect(answer.bundleGroups == [["0", "1"]])
        #expect(answer.media.map(\.mediaType) == ["audio", "video", "application"])
        #expect(answer.media.map(\.mid) == ["0", "1", "2"])
        #expect(answer.media.map(\.port) == [40_000, 40_000, 0])
        let answered = answer.media[1]
        #expect(answered.formats == ["96"])
        #expect(answered.rtpMap(for: 96) == SDPRTPMap(payloadType: 96, encodingName: "VP8", clockRate: 90_000))
        // Keyframe requests only: no transport-cc, REMB or NACK retransmission we could not honour.
        #expect(Set(answered.rtcpFeedback(for: 96).map { "\($0.type) \($0.parameter ?? "")" }) == ["nack pli", "ccm fir"])
        #expect(answered.ssrcs == [0x0B0B_0B0B] && answer.media[0].ssrcs == [0xCAFE_F00D])
        #expect(answered.iceUfrag == "srvU" && answered.setup == .passive && answered.rtcpMux)
        #expect(answered.candidates.count == 1 && answered.endOfCandidates)
        #expect(answer.media[2].isRejected)
    }

    @Test func aiortcOfferPicksItsFirstVideoCodecAndAnswersItsDirection() throws {
        let text = try Fixtures.text("aiortc-1.16-av-data-offer.sdp")
        let offer = try MediaOffer(offer: text, videoCodecs: [.h264])
        let video = try #require(offer.video)
        #expect(video.codec == .video(.h264) && video.payloadType == 99)  // aiortc's first H.264, packetization-mode=1
        #expect(video.formatParameters?.contains("profile-level-id=42001f") == true)
        let audioOnly = try MediaOffer(offer: text)
        #expect(audioOnly.video == nil && audioOnly.bundleMids == ["0"])
        let answer = ServerAnswerBuilder.answer(to: audioOnly, parameters: testParameters())
        #expect(answer.media.map(\.isRejected) == [false, true, true])
    }

    @Test func offeredDirectionIsAnsweredReversed() throws {
        let offer = try MediaOffer(offer: offer(bundle: ["a", "v"],
                                                section("audio", mid: "a", formats: "111", opus + "a=sendonly\r\n"),
                                                section("video", mid: "v", formats: "96", vp8 + "a=recvonly\r\n")),
                                   videoCodecs: [.vp8])
        let answer = ServerAnswerBuilder.answer(to: offer, parameters: videoParameters())
        #expect(answer.media.map(\.direction) == [.recvonly, .sendonly])
        #expect(answer.media[0].ssrcs.isEmpty && answer.media[1].ssrcs == [0x0B0B_0B0B])  // we send no audio
    }

    @Test func videoFirstOffersKeepTheirOrderAndAudioStaysTheFirstTrack() throws {
        let offer = try MediaOffer(offer: offer(bundle: ["v", "a"],
                                                section("video", mid: "v", formats: "96", vp8),
                                                section("audio", mid: "a", formats: "111", opus)),
                                   videoCodecs: [.vp8])
        #expect(offer.audioIndex == 1 && offer.video?.index == 0)
        #expect(offer.bundleMids == ["v", "a"])
        let answer = ServerAnswerBuilder.answer(to: offer, parameters: videoParameters())
        #expect(answer.media.map(\.mediaType) == ["video", "audio"])
        #expect(answer.bundleGroups == [["v", "a"]])
    }

    @Test(arguments: [
        ("video outside the BUNDLE group", ["a"], "96", "a=rtpmap:96 VP8/90000\r\n"),
        ("its payload type is audio's", ["a", "v"], "111", "a=rtpmap:111 VP8/90000\r\n"),
        ("H.264 without packetization-mode=1", ["a", "v"], "102", "a=rtpmap:102 H264/90000\r\n"),
        ("no codec we take", ["a", "v"], "35", "a=rtpmap:35 H265/90000\r\n"),
    ])
    func videoThatCannotShareTheTransportIsRejectedInPlace(why: String, bundle: [String], formats: String,
                                                            lines: String) throws {
        let offer = try MediaOffer(offer: offer(bundle: bundle,
                                                section("audio", mid: "a", formats: "111", opus),
                                                section("video", mid: "v", formats: formats, lines)),
                                   videoCodecs: VideoCodec.allCases)
        #expect(offer.video == nil, "\(why)")
        #expect(offer.bundleMids == ["a"], "\(why)")
        let answer = ServerAnswerBuilder.answer(to: offer, parameters: videoParameters())
        #expect(answer.media.map(\.isRejected) == [false, true], "\(why)")
        #expect(answer.media[1].mid == "v")
    }

    @Test func aSecondVideoSectionIsRejectedAndOnlyAcceptedMidsStayBundled() throws {
        let offer = try MediaOffer(offer: offer(bundle: ["a", "v1", "v2"],
                                                section("audio", mid: "a", formats: "111", opus),
                                                section("video", mid: "v1", formats: "96", vp8),
                                                section("video", mid: "v2", formats: "97", "a=rtpmap:97 VP8/90000\r\n")),
                                   videoCodecs: [.vp8])
        #expect(offer.sections.map(\.isAccepted) == [true, true, false])
        #expect(offer.bundleMids == ["a", "v1"])
    }

    @Test func echoSessionsAnswerVideoAndCallSessionsRejectIt() async throws {
        let server = try MediaTransportServer()
        let text = try Fixtures.text("chromium-156-av-data-offer.sdp")
        let echo = try SessionDescription(parsing: try await server.createEchoSession(offer: text).sdp)
        #expect(echo.media.map(\.isRejected) == [false, false, true])
        #expect(Set(echo.media[0].ssrcs + echo.media[1].ssrcs).count == 2)
        let call = try SessionDescription(parsing: try await server.createCallSession(offer: text, events: { _ in }).sdp)
        #expect(call.media.map(\.isRejected) == [false, true, true])
        #expect(call.bundleGroups == [["0"]])
        let snapshots = await server.sessions()
        #expect(Set(snapshots.map { $0.videoCodec }) == [.vp8, nil])
        await server.shutdown()
    }
}
