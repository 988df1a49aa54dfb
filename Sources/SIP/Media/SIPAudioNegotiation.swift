import SDP

/// Our answer to a SIP UA's offer: what was agreed and the SDP that says so.
public struct SIPAudioAnswer: Sendable, Hashable {
    public var parameters: SIPAudioParameters
    public var sdp: SessionDescription
}

/// RFC 3264 offer/answer for one audio stream between us and a SIP UA.
public enum SIPAudioNegotiation {
    /// Answers `offer` (RFC 3264 §6): the first audio section over RTP/AVP or RTP/SAVP that we
    /// can take is answered with one codec (our preference among the peer's, its payload type;
    /// with ``SIPLocalAudio/preferTelephoneEvents`` the first that has the peer's telephone-event
    /// at its clock rate, RFC 4733 §2.1), that telephone-event, our key for the first usable crypto line,
    /// and the direction that is both ours and the reverse of the peer's; every other section
    /// is rejected with port 0, in the offer's order.
    /// - Throws: ``SIPAudioRefusal`` (488) when no section can be taken, e.g. no common codec,
    ///   or SRTP required and not offered.
    public static func answer(to offer: SessionDescription, local: SIPLocalAudio) throws(SIPAudioRefusal) -> SIPAudioAnswer {
        var refusal: SIPAudioRefusal?
        var rejected: [MediaDescription] = []
        var chosen: (index: Int, parameters: SIPAudioParameters, section: MediaDescription)?
        for (index, media) in offer.media.enumerated() {
            if chosen == nil, SIPRemoteAudio.isAudio(media) {
                do {
                    let (parameters, section) = try answerAudio(media, in: offer, local: local)
                    chosen = (index, parameters, section)
                    continue
                } catch {
                    refusal = refusal ?? error
                }
            }
            rejected.append(MediaDescription(mediaType: media.mediaType, port: 0, proto: media.proto,
                                             formats: media.formats.isEmpty ? ["0"] : media.formats))
        }
        guard let chosen else { throw refusal ?? .noAudio }
        return SIPAudioAnswer(parameters: chosen.parameters,
                              sdp: local.description(audio: chosen.section, at: chosen.index, among: rejected))
    }

    /// ``answer(to:local:)`` for a message body; a body that is not SDP is refused (400).
    public static func answer(toOfferBody body: [UInt8], local: SIPLocalAudio) throws(SIPAudioRefusal) -> SIPAudioAnswer {
        try answer(to: parse(body), local: local)
    }

    /// Reads the peer's `answer` to our `offer` (RFC 3264 §6, §7): the audio section at our
    /// audio's index, the first of its formats we offered, telephone-event at that clock rate,
    /// SRTP when it answers one of our crypto lines (its tag and suite; required when we offered
    /// RTP/SAVP), and the direction both sides allow.
    public static func accept(answer: SessionDescription, toOffer offer: SessionDescription) throws(SIPAudioRefusal) -> SIPAudioParameters {
        guard let index = offer.media.firstIndex(where: SIPRemoteAudio.isAudio) else { throw .noAudio }
        guard answer.media.count == offer.media.count else { throw .answerMismatch }
        let answered = answer.media[index], ours = offer.media[index]
        guard answered.port != 0 else { throw .rejectedByPeer }
        guard answered.proto == ours.proto else { throw .answerMismatch }
        let remote = try SIPRemoteAudio(answered, in: answer)
        let offered = try SIPRemoteAudio(ours, in: offer)
        let codec = remote.formats.lazy.map(SIPAudioCodec.init).first { codec in
            codec.name.lowercased() != "telephone-event" && offered.formats.contains(where: codec.matches)
        }.flatMap(remote.format(matching:))
        guard let codec else { throw .noCommonCodec }
        let events = offered.telephoneEvent(clockRate: codec.clockRate) == nil ? nil : remote.telephoneEvent(clockRate: codec.clockRate)
        var srtp: SIPSRTPParameters?
        if let crypto = remote.cryptos.first {
            guard let theirs = SIPSRTPSuite.usable(crypto, among: SIPSRTPSuite.allCases),
                  let mine = offered.cryptos.first(where: { $0.tag == crypto.tag && $0.suite == crypto.suite }),
                  let localKey = SIPSRTPSuite.usable(mine, among: SIPSRTPSuite.allCases)?.1 else { throw .answerMismatch }
            srtp = SIPSRTPParameters(suite: theirs.0, tag: crypto.tag, localKey: localKey, remoteKey: theirs.1)
        } else if offered.isSecureProfile {
            throw .encryptionRequired
        }
        return remote.parameters(codec: codec, telephoneEvent: events, ourDirection: offered.direction,
                                 rtcpMux: offered.rtcpMux && remote.rtcpMux, srtp: srtp)
    }

    /// ``accept(answer:toOffer:)`` for a message body.
    public static func accept(answerBody body: [UInt8], toOffer offer: SessionDescription) throws(SIPAudioRefusal) -> SIPAudioParameters {
        try accept(answer: parse(body), toOffer: offer)
    }

    /// The direction we answer a (re-)offer with when we want `local` (RFC 3264 §8.4): a
    /// `sendonly` offer (hold) gets `recvonly`, `inactive` or `c=0.0.0.0` gets `inactive` or
    /// `recvonly`, `sendrecv` (resume) gets `local`. Nil when the offer has no usable audio.
    public static func answerDirection(toOffer offer: SessionDescription, wanting local: SDPDirection = .sendrecv) -> SDPDirection? {
        guard let media = offer.media.first(where: SIPRemoteAudio.isAudio),
              let remote = try? SIPRemoteAudio(media, in: offer) else { return nil }
        return local.intersection(remote.direction.reversed)
    }

    private static func answerAudio(_ media: MediaDescription, in offer: SessionDescription,
                                    local: SIPLocalAudio) throws(SIPAudioRefusal) -> (SIPAudioParameters, MediaDescription) {
        let remote = try SIPRemoteAudio(media, in: offer)
        let usable = remote.cryptos.lazy.compactMap { crypto in
            SIPSRTPSuite.usable(crypto, among: local.srtpSuites).map { (crypto.tag, $0.0, $0.1) }
        }.first
        var srtp: SIPSRTPParameters?
        if let usable, local.encryption != .none {
            srtp = SIPSRTPParameters(suite: usable.1, tag: usable.0, localKey: local.srtpKey, remoteKey: usable.2)
        } else if remote.isSecureProfile {
            throw .unusableEncryption
        } else if local.encryption == .required {
            throw .encryptionRequired
        }
        let common = local.codecs.compactMap(remote.format(matching:))
        func event(for codec: SIPAudioCodec) -> SIPTelephoneEvent? {
            local.telephoneEvents.contains { $0.clockRate == codec.clockRate } ? remote.telephoneEvent(clockRate: codec.clockRate) : nil
        }
        let withEvents = local.preferTelephoneEvents ? common.first { event(for: $0) != nil } : nil
        guard let codec = withEvents ?? common.first else { throw .noCommonCodec }
        let event = event(for: codec)
        let mux = local.rtcpMux && remote.rtcpMux
        let parameters = remote.parameters(codec: codec, telephoneEvent: event, ourDirection: local.direction, rtcpMux: mux, srtp: srtp)
        // We send our own fmtp for the codec (e.g. Opus FEC), under the peer's payload type.
        var ours = codec
        ours.formatParameters = local.codecs.first { $0.matches(codec.rtpMap) }?.formatParameters
        let section = local.audioSection(proto: media.proto, codecs: [ours], events: event.map { [$0] } ?? [], rtcpMux: mux,
                                         cryptos: srtp.map { [$0.suite.crypto(tag: $0.tag, key: $0.localKey)] } ?? [],
                                         direction: parameters.direction)
        return (parameters, section)
    }

    private static func parse(_ body: [UInt8]) throws(SIPAudioRefusal) -> SessionDescription {
        do { return try SessionDescription(parsing: body) } catch { throw .malformedSDP(error.description) }
    }

}
