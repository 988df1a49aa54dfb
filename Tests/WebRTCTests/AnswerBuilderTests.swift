import ICE
import ParleyCore
import ParleyCrypto
import RTCP
import SDP
import Testing
@testable import WebRTC

@Suite struct AnswerBuilderTests {
    @Test func chromiumAudioOfferGetsOpus111AndIceLite() throws {
        let offer = try MediaOffer(offer: try Fixtures.text("chromium-156-audio-offer.sdp"))
        #expect(offer.codec == .opus)
        #expect(offer.payloadType == 111)
        #expect(offer.localDTLSRole == .server)
        #expect(offer.remoteCredentials.ufrag == "9C1q")
        let text = ServerAnswerBuilder.answer(to: offer, parameters: testParameters()).serialized()
        let answer = try SessionDescription(parsing: text)
        #expect(answer.iceLite)
        #expect(answer.bundleGroups == [["0"]])
        #expect(answer.media.count == 1)
        let audio = try #require(answer.media.first)
        // Chromium offers RED (RFC 2198) around Opus; the answer takes it with the offer's fmtp.
        #expect(offer.audio.redPayloadType == 63)
        #expect(audio.formats == ["63", "111"])
        #expect(audio.rtpMap(for: 63) == SDPRTPMap(payloadType: 63, encodingName: "red", clockRate: 48_000, channels: 2))
        #expect(audio.formatParameters(for: 63)?.parameterString == "111/111")
        #expect(audio.port == 40_000)
        #expect(audio.mid == "0")
        #expect(audio.setup == .passive)
        #expect(audio.rtcpMux)
        #expect(audio.direction == .sendrecv)
        #expect(audio.iceUfrag == "srvU")
        #expect(audio.icePwd == "serverpassword0123456789")
        #expect(audio.fingerprints.first?.hashFunction == "sha-256")
        #expect(audio.fingerprints.first?.bytes == testFingerprint.digest)
        #expect(audio.rtpMap(for: 111)?.encodingName == "opus")
        #expect(audio.rtpMap(for: 111)?.channels == 2)
        #expect(audio.formatParameters(for: 111)?.parameterString == "minptime=10;useinbandfec=1")
        #expect(audio.ssrcs == [0xCAFE_F00D])
        #expect(audio.msids.first?.streamID == "parley-echo")
        #expect(audio.candidates.count == 1)
        #expect(audio.candidates.first?.type == .host)
        #expect(audio.candidates.first?.port == 40_000)
        #expect(audio.endOfCandidates)
    }

    @Test func aiortcAVOfferAcceptsAudioAndRejectsTheRest() throws {
        let offer = try MediaOffer(offer: try Fixtures.text("aiortc-1.16-av-data-offer.sdp"))
        #expect(offer.codec == .opus)
        #expect(offer.payloadType == 96)
        #expect(offer.remoteFingerprints.count == 3)
        let answer = try SessionDescription(parsing: ServerAnswerBuilder.answer(to: offer, parameters: testParameters()).serialized())
        #expect(answer.media.count == 3)  // one answer section per offered section
        #expect(answer.media[0].formats == ["96"])
        #expect(!answer.media[0].isRejected)
        #expect(answer.media[1].isRejected && answer.media[1].mediaType == "video")
        #expect(answer.media[2].isRejected && answer.media[2].mediaType == "application")
        #expect(answer.media.map(\.mid) == ["0", "1", "2"])
        #expect(answer.bundleGroups == [["0"]])
        #expect(answer.iceLite)
    }

    @Test func g711FallbackWhenNoOpus() throws {
        let both = try MediaOffer(offer: makeOffer(codecs: "a=rtpmap:8 PCMA/8000\r\n", formats: "8 0"))
        #expect(both.codec == .pcmu)  // Opus, then PCMU, then PCMA, whatever the offer's order
        let pcma = try MediaOffer(offer: makeOffer(codecs: "a=rtpmap:8 PCMA/8000\r\n", formats: "8"))
        #expect(pcma.codec == .pcma && pcma.payloadType == 8)
        let pcmu = try MediaOffer(offer: makeOffer(codecs: "", formats: "0"))
        #expect(pcmu.codec == .pcmu && pcmu.payloadType == 0)
    }

    @Test func passiveOfferMakesUsTheDTLSClient() throws {
        let offer = try MediaOffer(offer: makeOffer(setup: "passive"))
        #expect(offer.localDTLSRole == .client)
        let answer = ServerAnswerBuilder.answer(to: offer, parameters: testParameters())
        #expect(answer.media[0].setup == .active)
    }

    @Test(arguments: [
        ("no audio codec we know", makeOffer(codecs: "a=rtpmap:9 G722/8000\r\n", formats: "9"), 53404),
        ("no audio section", """
         v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n
         """, 53404),
        ("not SDP", "hello", 53403),
        ("no ICE credentials", makeOffer(ufrag: "", pwd: ""), 53403),
        ("no rtcp-mux", makeOffer(extra: ""), 53403),
    ])
    func unusableOffersMapToMediaCodes(name: String, sdp: String, code: Int) {
        do {
            _ = try MediaOffer(offer: sdp)
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code.rawValue == code, "\(name): \(error)")
        }
    }
}

@Suite struct DemuxTests {
    @Test(arguments: [
        ([0x00, 0x01] + [UInt8](repeating: 0, count: 18), MediaPacketClass.stun),
        ([0x00, 0x01, 0x00], .unknown),  // too short for STUN
        ([22, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 10), .dtls),
        ([0x80, 111] + [UInt8](repeating: 0, count: 10), .rtp),
        ([0x80, 200] + [UInt8](repeating: 0, count: 6), .rtcp),
        ([0x81, 201] + [UInt8](repeating: 0, count: 6), .rtcp),
        ([0x80, 0xFF] + [UInt8](repeating: 0, count: 10), .rtp),  // marker bit + PT 127
        ([0x40, 0x00, 0, 4, 1, 2, 3, 4], .unknown),  // TURN ChannelData
        ([0x10] + [UInt8](repeating: 0, count: 12), .unknown),  // ZRTP
        ([0xFF] + [UInt8](repeating: 0, count: 12), .unknown),
        ([], .unknown),
    ] as [([UInt8], MediaPacketClass)])
    func classifiesByFirstByte(bytes: [UInt8], expected: MediaPacketClass) {
        #expect(MediaPacketClass.classify(bytes) == expected)
    }
}

@Suite struct ReceptionStatisticsTests {
    @Test func countsLossAcrossWrapAndEstimatesJitter() {
        var stats = ReceptionStatistics()
        var seq: UInt16 = 65_530
        var ts: UInt32 = 1000
        for i in 0..<20 {
            if i != 7 && i != 8 {  // two lost
                stats.record(ssrc: 7, sequence: seq, timestamp: ts, payloadBytes: 100, arrival: Double(i) * 0.02,
                             clockRate: 48_000)
            }
            seq &+= 1
            ts &+= 960
        }
        #expect(stats.packetsReceived == 18)
        #expect(stats.cumulativeLost == 2)
        #expect(stats.extendedHighestSequence == 0x1_0000 + 13)  // 65530 + 19, one wrap
        #expect(stats.jitter == 0)  // perfectly paced
        let report = stats.makeReport(now: 1)
        #expect(report?.fractionLost == UInt8((2 << 8) / 20))
        #expect(report?.totalLost == 2)
    }
}
