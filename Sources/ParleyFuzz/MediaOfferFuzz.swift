import ICE
import ParleyCrypto
import SDP
import WebRTC

/// Feeds SDP text to what a server does with an offer: the call and room readings
/// (`MediaOffer`), each answer built from them (`ServerAnswerBuilder`) and parsed back. A reading
/// may refuse the offer with its documented error; whatever it accepts must give an answer that
/// parses, has one section per offered section and keeps the offer's mids, and a data channel
/// section it took (RFC 8841) answered with our SCTP port and message limit.
enum MediaOfferFuzz {
    static let parameters: AnswerParameters? = DTLSFingerprint(algorithm: .sha256, digest: [UInt8](repeating: 0xAB, count: 32))
        .map { fingerprint in
            var p = AnswerParameters(localCredentials: ICECredentials(ufrag: "fuzz", pwd: "fuzzfuzzfuzzfuzzfuzzfuzz"),
                                     fingerprint: fingerprint, candidates: [], ssrc: 1, videoSSRC: 2, cname: "fuzz",
                                     sessionID: 1)
            p.telephoneEvent = true
            return p
        }

    static func run(_ data: UnsafeRawBufferPointer) {
        guard let parameters,
              let description = try? SessionDescription(parsing: UnsafeRawBufferPointer(data), limits: SDPFuzz.limits) else { return }
        if let offer = try? MediaOffer(offer: description, videoCodecs: VideoCodec.allCases) { check(offer, parameters) }
        if let offer = try? MediaOffer(roomOffer: description, videoCodecs: MediaTransportServer.roomVideoCodecs) {
            var room = parameters
            room.sectionTracks = Dictionary(offer.accepted.compactMap { $0.mid }.enumerated().map { i, mid in
                (mid, AnswerParameters.SectionTrack(msid: SDPMSID(streamID: "s", trackID: mid), ssrc: UInt32(i + 10)))
            }, uniquingKeysWith: { a, _ in a })
            check(offer, room)
            _ = offer.payloadFormats(telephoneEvent: false)
        }
    }

    static func check(_ offer: MediaOffer, _ parameters: AnswerParameters) {
        let answer = ServerAnswerBuilder.answer(to: offer, parameters: parameters)
        guard let reparsed = try? SessionDescription(parsing: answer.serialized(), limits: SDPLimits(maxBytes: 1 << 20, maxLines: 8192)) else {
            fatalError("an answer does not parse")
        }
        guard reparsed.media.count == offer.description.media.count,
              reparsed.media.map(\.mid) == offer.description.media.map(\.mid) else {
            fatalError("an answer's sections differ from the offer's")
        }
        // A data channel section taken (RFC 8841) is answered in place with our port and limit.
        if let application = offer.application {
            let answered = reparsed.media[application.index]
            guard answered.mediaType == "application", answered.port != 0, answered.formats == ["webrtc-datachannel"],
                  answered.sctpPort == OfferedApplication.localPort,
                  answered.maxMessageSize == UInt64(OfferedApplication.localMaxMessageSize),
                  application.sendLimit > 0, application.sendLimit <= OfferedApplication.localMaxMessageSize,
                  application.mid.map({ offer.bundleMids.isEmpty || offer.bundleMids.contains($0) }) ?? true else {
                fatalError("a data channel section is answered wrong")
            }
        }
    }
}
