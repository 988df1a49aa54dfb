import SDP
import SIP

/// The SDP fuzzer's descriptions read as a SIP UA's offer (RFC 3264): answering must not crash
/// under any encryption policy, an answer has one section per offered one and parses back equal,
/// and reading our answer as the answer to that offer agrees on codec and keys.
enum SIPAudioFuzz {
    static let local = SIPLocalAudio(address: "192.0.2.1", port: 4000, srtpKey: SIPSRTPKey(keySalt: Array(repeating: 7, count: 30))!,
                                     sessionID: 1)

    static func check(_ offer: SessionDescription) {
        _ = SIPAudioNegotiation.answerDirection(toOffer: offer)
        for encryption in SIPMediaEncryption.allCases {
            var ours = local
            ours.encryption = encryption
            guard let answer = try? SIPAudioNegotiation.answer(to: offer, local: ours) else { continue }
            guard answer.sdp.media.count == offer.media.count,
                  (try? SessionDescription(parsing: answer.sdp.serialized())) == answer.sdp else {
                fatalError("SIP audio answer is not one section per offered one, or does not parse back")
            }
            guard let accepted = try? SIPAudioNegotiation.accept(answer: answer.sdp, toOffer: offer) else { continue }
            guard accepted.codec.payloadType == answer.parameters.codec.payloadType,
                  accepted.srtp?.localKey == answer.parameters.srtp?.remoteKey else {
                fatalError("SIP audio answer and its acceptance disagree")
            }
        }
    }
}
