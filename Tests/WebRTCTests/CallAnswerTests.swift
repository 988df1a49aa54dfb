import ICE
import ParleyCrypto
import SDP
import Testing
@testable import WebRTC

/// Answers of call sessions: telephone-event beside the codec, at the codec's clock rate.
@Suite struct CallAnswerTests {
    func callParameters() -> AnswerParameters {
        var parameters = testParameters()
        parameters.telephoneEvent = true
        return parameters
    }

    @Test func chromiumOfferGetsOpusAndTelephoneEvent48000() throws {
        let offer = try MediaOffer(offer: try Fixtures.text("chromium-156-audio-offer.sdp"))
        #expect(offer.telephoneEventPayloadType == 110)
        let answer = try SessionDescription(parsing: ServerAnswerBuilder.answer(to: offer, parameters: callParameters()).serialized())
        let audio = try #require(answer.media.first)
        #expect(audio.formats == ["63", "111", "110"])
        #expect(audio.rtpMap(for: 110) == SDPRTPMap(payloadType: 110, encodingName: "telephone-event", clockRate: 48_000))
        #expect(audio.formatParameters(for: 110) == nil)  // Chromium offers none
        // An echo answer keeps to the codec (and RED, which it echoes) without telephone events.
        let echo = try SessionDescription(parsing: ServerAnswerBuilder.answer(to: offer, parameters: testParameters()).serialized())
        #expect(echo.media.first?.formats == ["63", "111"])
    }

    @Test func g711OfferGetsTelephoneEvent8000WithItsFmtp() throws {
        let offer = try MediaOffer(offer: makeOffer(
            codecs: "a=rtpmap:0 PCMU/8000\r\na=rtpmap:96 telephone-event/48000\r\na=rtpmap:101 telephone-event/8000\r\n"
                + "a=fmtp:101 0-16\r\n",
            formats: "0 96 101"))
        #expect(offer.codec == .pcmu)
        #expect(offer.telephoneEventPayloadType == 101)
        let answer = try SessionDescription(parsing: ServerAnswerBuilder.answer(to: offer, parameters: callParameters()).serialized())
        let audio = try #require(answer.media.first)
        #expect(audio.formats == ["0", "101"])
        #expect(audio.rtpMap(for: 101)?.clockRate == 8_000)
        #expect(audio.formatParameters(for: 101)?.parameterString == "0-16")
    }

    @Test func telephoneEventAtAnotherRateIsNotAccepted() throws {
        let offer = try MediaOffer(offer: makeOffer(
            codecs: "a=rtpmap:111 opus/48000/2\r\na=rtpmap:126 telephone-event/8000\r\n", formats: "111 126"))
        #expect(offer.telephoneEventPayloadType == nil)
        let answer = try SessionDescription(parsing: ServerAnswerBuilder.answer(to: offer, parameters: callParameters()).serialized())
        #expect(answer.media.first?.formats == ["111"])
    }

    @Test func laterAnswerKeepsTheDTLSRoleAndBumpsTheVersion() throws {
        var parameters = callParameters()
        parameters.sessionVersion = 3
        let reoffer = try MediaOffer(offer: makeOffer(setup: "actpass"))
        let answer = try SessionDescription(parsing: ServerAnswerBuilder.answer(to: reoffer, parameters: parameters,
                                                                              dtlsRole: .client).serialized())
        #expect(answer.media.first?.setup == .active)
        #expect(answer.origin.sessionVersion == 3)
    }
}
