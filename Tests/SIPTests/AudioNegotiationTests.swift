import Foundation
import SDP
import SIP
import SIPWire
import Testing

/// RFC 3264 offer/answer for one audio stream, on offers captured from sipp 3.6 and baresip 1.0
/// (`Tests/Fixtures/sip/offers/`) and on hand-written SDPs in the shapes other UAs send.
@Suite struct AudioNegotiationTests {
    let key = SIPSRTPKey(keySalt: Array(1...30))!

    func local(_ encryption: SIPMediaEncryption = .optional, codecs: [SIPAudioCodec] = SIPAudioCodec.defaultPreference,
               direction: SDPDirection = .sendrecv) -> SIPLocalAudio {
        SIPLocalAudio(address: "192.0.2.10", port: 30000, codecs: codecs, direction: direction, encryption: encryption,
                      srtpKey: key, sessionID: 42)
    }

    func sdp(_ lines: String) throws -> SessionDescription { try SessionDescription(parsing: lines) }

    @Test func rfc3264_6_1_aPCMUOnlyOfferFromSippGetsPCMU() throws {
        let answer = try SIPAudioNegotiation.answer(to: SIPOfferFixtures.sdp("sipp-3.6-uac-offer.sdp"), local: local())
        let p = answer.parameters
        #expect(p.codec.name == "PCMU" && p.codec.payloadType == 0 && p.codec.clockRate == 8000)
        #expect(p.remoteAddress == "127.0.0.1" && p.remotePort == 6000)
        #expect(p.remoteRTCPPort == 6001 && !p.rtcpMux)
        #expect(p.telephoneEvent == nil && p.srtp == nil && p.ptime == 20 && p.direction == .sendrecv)
        let media = try #require(answer.sdp.media.first)
        #expect(media.port == 30000 && media.proto == "RTP/AVP" && media.formats == ["0"])
        #expect(media.rtpMap(for: 0)?.encodingName == "PCMU" && media.direction == .sendrecv)
        #expect(answer.sdp.connection?.address == "192.0.2.10")
        #expect(try SessionDescription(parsing: answer.sdp.serialized()) == answer.sdp)
    }

    @Test func rfc3264_6_1_anOpusAndPCMUOfferGetsOpus() throws {
        // linphone's shape: Opus first, events at 48 and 8 kHz.
        let offer = try sdp("""
            v=0\r\no=alice 2712 1234 IN IP4 198.51.100.4\r\ns=Talk\r\nc=IN IP4 198.51.100.4\r\nt=0 0\r
            m=audio 7078 RTP/AVP 96 0 8 101 100\r\na=rtpmap:96 opus/48000/2\r\na=fmtp:96 useinbandfec=1\r
            a=rtpmap:101 telephone-event/48000\r\na=rtpmap:100 telephone-event/8000\r\na=rtcp-fb:* trr-int 1000\r\n
            """)
        let answer = try SIPAudioNegotiation.answer(to: offer, local: local())
        #expect(answer.parameters.codec == SIPAudioCodec(name: "opus", clockRate: 48000, channels: 2, payloadType: 96,
                                                         formatParameters: "useinbandfec=1"))
        #expect(answer.parameters.telephoneEvent == SIPTelephoneEvent(payloadType: 101, clockRate: 48000))
        #expect(answer.sdp.media.first?.formats == ["96", "101"])
        #expect(answer.parameters.remoteRTCPPort == 7079)
    }

    @Test func rfc4733_2_1_baresipsEventsAt8000LeadToG722UnlessOpusIsPreferredAnyway() throws {
        let offer = try SIPOfferFixtures.sdp("baresip-1.0-offer.sdp")
        let withEvents = try SIPAudioNegotiation.answer(to: offer, local: local())
        #expect(withEvents.parameters.codec.name == "G722" && withEvents.parameters.codec.payloadType == 9)
        #expect(withEvents.parameters.telephoneEvent == SIPTelephoneEvent(payloadType: 101, clockRate: 8000))
        #expect(withEvents.sdp.media.first?.formats == ["9", "101"])

        var opusFirst = local()
        opusFirst.preferTelephoneEvents = false
        let answer = try SIPAudioNegotiation.answer(to: offer, local: opusFirst)
        let p = answer.parameters
        #expect(p.codec.name == "opus" && p.codec.payloadType == 96 && p.codec.channels == 2 && p.codec.clockRate == 48000)
        #expect(p.codec.formatParameters == "stereo=1;sprop-stereo=1;maxaveragebitrate=28000")
        #expect(p.telephoneEvent == nil)
        #expect(p.remoteAddress == "192.0.2.2" && p.remotePort == 48318 && p.ptime == 20)
        let media = try #require(answer.sdp.media.first)
        #expect(media.formats == ["96"])
        #expect(media.rtpMap(for: 96)?.sdpText == "96 opus/48000/2")
        #expect(media.formatParameters(for: 96)?.parameterString == "useinbandfec=1")
        #expect(media.attributeValue("ptime") == "20")
    }

    @Test func rfc4733_telephoneEventAt8000ComesWithPCMU() throws {
        let offer = try SIPOfferFixtures.sdp("baresip-1.0-offer.sdp")
        let p = try SIPAudioNegotiation.answer(to: offer, local: local(codecs: [.pcmu, .opus])).parameters
        #expect(p.codec.name == "PCMU" && p.telephoneEvent == SIPTelephoneEvent(payloadType: 101, clockRate: 8000))
        let asterisk = try sdp("""
            v=0\r\no=- 1612 1612 IN IP4 203.0.113.5\r\ns=Asterisk\r\nc=IN IP4 203.0.113.5\r\nt=0 0\r
            m=audio 17424 RTP/AVP 8 0 101\r\na=rtpmap:8 PCMA/8000\r\na=rtpmap:0 PCMU/8000\r
            a=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-16\r\na=ptime:30\r\na=maxptime:150\r\na=rtcp:17425\r\na=sendrecv\r\n
            """)
        let answer = try SIPAudioNegotiation.answer(to: asterisk, local: local())
        #expect(answer.parameters.codec.name == "PCMU" && answer.parameters.telephoneEvent?.payloadType == 101)
        #expect(answer.parameters.ptime == 30 && answer.parameters.remoteRTCPPort == 17425)
        #expect(answer.sdp.media.first?.formats == ["0", "101"])
        #expect(answer.sdp.media.first?.formatParameters(for: 101)?.parameterString == "0-16")
    }

    @Test func rfc4568_6_1_savpWithCryptoGivesSRTPAndOurKeyInTheAnswer() throws {
        let offer = try SIPOfferFixtures.sdp("baresip-1.0-savp-offer.sdp")
        let answer = try SIPAudioNegotiation.answer(to: offer, local: local(.required))
        let srtp = try #require(answer.parameters.srtp)
        #expect(srtp.suite == .aesCM128HMACSHA1_80 && srtp.tag == 1 && srtp.localKey == key)
        let theirs = try #require(Data(base64Encoded: "8pY8IsF+Ooq7W+G8bqI8Z0oJBPBKgMFxAgeI+Q+p"))
        #expect(srtp.remoteKey.keySalt == Array(theirs))
        let media = try #require(answer.sdp.media.first)
        #expect(media.proto == "RTP/SAVP")
        let crypto = try SDPCrypto(attribute: try #require(media.attributes(named: "crypto").first))
        #expect(crypto.tag == 1 && crypto.suite == "AES_CM_128_HMAC_SHA1_80" && crypto.keys.first?.keySalt == key.keySalt)
    }

    @Test func rfc4568_bestEffortSDESOnRTPAVP() throws {
        let offer = try SIPOfferFixtures.sdp("baresip-1.0-sdes-offer.sdp")
        let optional = try SIPAudioNegotiation.answer(to: offer, local: local(.optional))
        #expect(optional.parameters.srtp?.suite == .aesCM128HMACSHA1_80)
        #expect(optional.sdp.media.first?.proto == "RTP/AVP" && optional.sdp.media.first?.hasAttribute("crypto") == true)
        #expect(try SIPAudioNegotiation.answer(to: offer, local: local(.required)).parameters.srtp != nil)
        let plain = try SIPAudioNegotiation.answer(to: offer, local: local(.none))
        #expect(plain.parameters.srtp == nil && plain.sdp.media.first?.hasAttribute("crypto") == false)
    }

    @Test func rfc3261_21_4_26_requiredSRTPButAPlainOfferIs488() throws {
        let offer = try SIPOfferFixtures.sdp("sipp-3.6-uac-offer.sdp")
        #expect(throws: SIPAudioRefusal.encryptionRequired) { _ = try SIPAudioNegotiation.answer(to: offer, local: local(.required)) }
        #expect(SIPAudioRefusal.encryptionRequired.statusCode == 488)
        let savp = try SIPOfferFixtures.sdp("baresip-1.0-savp-offer.sdp")
        #expect(throws: SIPAudioRefusal.unusableEncryption) { _ = try SIPAudioNegotiation.answer(to: savp, local: local(.none)) }
    }

    @Test func rfc3264_6_videoIsRejectedWithPortZeroInOfferOrder() throws {
        let offer = try sdp("""
            v=0\r\no=- 3 3 IN IP4 198.51.100.4\r\ns=Talk\r\nc=IN IP4 198.51.100.4\r\nt=0 0\r
            m=video 9078 RTP/AVP 96\r\na=rtpmap:96 VP8/90000\r
            m=audio 7078 RTP/AVP 96 0 101\r\na=rtpmap:96 opus/48000/2\r\na=fmtp:96 useinbandfec=1\r
            a=rtpmap:101 telephone-event/48000\r\na=rtcp-mux\r\n
            """)
        let answer = try SIPAudioNegotiation.answer(to: offer, local: local())
        #expect(answer.sdp.media.map(\.mediaType) == ["video", "audio"])
        #expect(answer.sdp.media.map(\.port) == [0, 30000])
        #expect(answer.sdp.media[0].formats == ["96"] && answer.sdp.media[0].attributes.isEmpty)
        let p = answer.parameters
        #expect(p.codec.name == "opus" && p.telephoneEvent == SIPTelephoneEvent(payloadType: 101, clockRate: 48000))
        #expect(p.rtcpMux && p.remoteRTCPPort == 7078 && answer.sdp.media[1].rtcpMux)
        #expect(try SessionDescription(parsing: answer.sdp.serialized()).media.count == 2)
    }

    @Test func rfc3264_8_4_sendonlyIsAnsweredRecvonlyAndResumeSendrecv() throws {
        let hold = try SIPOfferFixtures.sdp("baresip-1.0-savp-hold-offer.sdp")
        let answer = try SIPAudioNegotiation.answer(to: hold, local: local())
        #expect(answer.parameters.direction == .recvonly && answer.parameters.isHeldByRemote)
        #expect(answer.sdp.media.first?.direction == .recvonly)
        #expect(SIPAudioNegotiation.answerDirection(toOffer: hold) == .recvonly)
        let resume = try SIPOfferFixtures.sdp("baresip-1.0-savp-resume-offer.sdp")
        #expect(SIPAudioNegotiation.answerDirection(toOffer: resume) == .sendrecv)
        #expect(SIPAudioNegotiation.answerDirection(toOffer: resume, wanting: .sendonly) == .sendonly)
        #expect(try !SIPAudioNegotiation.answer(to: resume, local: local()).parameters.isHeldByRemote)
    }

    @Test func rfc3264_8_4_connectionZeroIsHold() throws {
        let offer = try sdp("""
            v=0\r\no=- 9 10 IN IP4 203.0.113.80\r\ns=-\r\nc=IN IP4 0.0.0.0\r\nt=0 0\r
            m=audio 10000 RTP/AVP 0\r\n
            """)
        let p = try SIPAudioNegotiation.answer(to: offer, local: local()).parameters
        #expect(p.remoteAddress == "0.0.0.0" && p.isHeldByRemote && p.direction == .recvonly)
        let inactive = try sdp("v=0\r\no=- 9 10 IN IP4 203.0.113.80\r\ns=-\r\nc=IN IP4 0.0.0.0\r\nt=0 0\r\nm=audio 10000 RTP/AVP 0\r\na=recvonly\r\n")
        #expect(SIPAudioNegotiation.answerDirection(toOffer: inactive) == .inactive)
    }

    @Test func garbageOrIncompleteOffersAreRefusedNotCrashed() throws {
        #expect(throws: SIPAudioRefusal.self) { _ = try SIPAudioNegotiation.answer(toOfferBody: Array("not sdp\r\n".utf8), local: local()) }
        do {
            _ = try SIPAudioNegotiation.answer(toOfferBody: [0xFF, 0x00, 0x41], local: local())
            Issue.record("garbage accepted")
        } catch {
            #expect(error.statusCode == 400)
        }
        let noConnection = try sdp("v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n")
        #expect(throws: SIPAudioRefusal.noConnectionAddress) { _ = try SIPAudioNegotiation.answer(to: noConnection, local: local()) }
        let g729 = try sdp("v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 18\r\n")
        #expect(throws: SIPAudioRefusal.noCommonCodec) { _ = try SIPAudioNegotiation.answer(to: g729, local: local()) }
        let videoOnly = try sdp("v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=video 4000 RTP/AVP 96\r\n")
        #expect(throws: SIPAudioRefusal.noAudio) { _ = try SIPAudioNegotiation.answer(to: videoOnly, local: local()) }
        #expect(SIPAudioNegotiation.answerDirection(toOffer: videoOnly) == nil)
    }

    @Test func rfc3264_5_ourOfferAndItsAnswerAgreeOnBothSides() throws {
        let ours = local(.required)
        let offer = SIPAudioOffer.make(ours)
        let media = try #require(offer.media.first)
        #expect(media.proto == "RTP/SAVP" && media.formats == ["111", "9", "0", "8", "101", "110"])
        #expect(media.attributes(named: "crypto").compactMap { try? SDPCrypto(attribute: $0).suite }
                == ["AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32"])
        #expect(media.attributeValue("ptime") == "20" && media.direction == .sendrecv && media.rtcpMux)
        #expect(try SessionDescription(parsing: offer.serialized()) == offer)

        // A peer that prefers PCMU and the 32-bit tag answers with our own negotiator.
        var peer = SIPLocalAudio(address: "198.51.100.20", port: 7000, codecs: [.pcmu], encryption: .required,
                                 srtpSuites: [.aesCM128HMACSHA1_32], srtpKey: .random(), rtcpMux: false)
        let answer = try SIPAudioNegotiation.answer(to: offer, local: peer)
        let p = try SIPAudioNegotiation.accept(answer: answer.sdp, toOffer: offer)
        #expect(p.codec.name == "PCMU" && p.telephoneEvent?.payloadType == 101)
        #expect(p.remoteAddress == "198.51.100.20" && p.remotePort == 7000 && p.remoteRTCPPort == 7001 && !p.rtcpMux)
        #expect(p.srtp == SIPSRTPParameters(suite: .aesCM128HMACSHA1_32, tag: 2, localKey: key, remoteKey: peer.srtpKey))
        #expect(answer.parameters.srtp?.remoteKey == key)

        // Hold (RFC 3264 §8.4): we offer sendonly, the peer answers recvonly.
        peer.codecs = [.opus]
        peer.encryption = .optional
        let holdOffer = SIPAudioOffer.make(local(.none, direction: .sendonly))
        #expect(holdOffer.media.first?.proto == "RTP/AVP" && holdOffer.media.first?.hasAttribute("crypto") == false)
        let holdAnswer = try SIPAudioNegotiation.answer(to: holdOffer, local: peer)
        #expect(holdAnswer.sdp.media.first?.direction == .recvonly)
        let held = try SIPAudioNegotiation.accept(answer: holdAnswer.sdp, toOffer: holdOffer)
        #expect(held.direction == .sendonly && held.codec.name == "opus" && held.srtp == nil)
    }

    @Test func rfc3264_6_answersThatRejectOrDropKeysAreRefused() throws {
        let offer = SIPAudioOffer.make(local(.required))
        var rejected = offer
        rejected.media[0].port = 0
        #expect(throws: SIPAudioRefusal.rejectedByPeer) { _ = try SIPAudioNegotiation.accept(answer: rejected, toOffer: offer) }
        var keyless = offer
        keyless.media[0].attributes.removeAll { $0.name == "crypto" }
        #expect(throws: SIPAudioRefusal.encryptionRequired) { _ = try SIPAudioNegotiation.accept(answer: keyless, toOffer: offer) }
        #expect(throws: SIPAudioRefusal.self) { _ = try SIPAudioNegotiation.accept(answerBody: Array("v=0\r\n".utf8), toOffer: offer) }
    }
}

extension SDPRTPMap {
    var sdpText: String { "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "") }
}

