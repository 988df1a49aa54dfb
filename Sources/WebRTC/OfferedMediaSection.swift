import ParleyRTP
import SDP

/// One m-section of a remote description and what we accept from it; rejected sections have no
/// `codec` and are answered with port 0 (RFC 8829 §5.3.1).
public struct OfferedMediaSection: Sendable, Hashable {
    /// A codec and the payload type the offer gave it.
    struct Choice: Sendable, Hashable {
        var codec: MediaCodec
        var payloadType: UInt8
    }

    public let index: Int
    /// `audio`, `video`, `application`, …
    public let mediaType: String
    public let mid: String?
    public let proto: String
    /// The offer's direction (RFC 8866 §6.7: `sendrecv` when absent).
    public let direction: SDPDirection
    /// The codec we accept; nil when the section is rejected.
    public let codec: MediaCodec?
    public let payloadType: UInt8
    /// The offer's fmtp for `payloadType`, echoed in the answer.
    public let formatParameters: String?
    /// The offer's RTCP feedback for `payloadType` that we answer: keyframe requests on video
    /// (`nack pli`, RFC 4585 §6.3.1; `ccm fir`, RFC 5104 §7.1), which a forwarder relays; Generic
    /// NACK on audio (RFC 4585 §6.2.1).
    public let rtcpFeedback: [SDPRTCPFeedback]
    /// The offered RFC 4733 `telephone-event` at the audio codec's clock rate
    /// (`telephone-event/48000` beside Opus, `/8000` beside G.711; RFC 4733 §2.1), if any.
    public let telephoneEventPayloadType: UInt8?
    /// The offer's fmtp for `telephoneEventPayloadType` (the events it supports, e.g. `0-16`).
    public let telephoneEventFormatParameters: String?
    /// The offered RFC 2198 `red/48000/2` whose blocks are the accepted Opus (fmtp `111/111`, as
    /// browsers offer it), if any: accepted beside the codec, as browsers do.
    public internal(set) var redPayloadType: UInt8?
    /// The SSRCs the offerer announced in the section.
    public let remoteSSRCs: [UInt32]
    /// Room audio sections: the offer's id for the RFC 6464 client-to-mixer audio level
    /// (`urn:ietf:params:rtp-hdrext:ssrc-audio-level`), accepted in the answer, if offered.
    public let audioLevelExtensionID: UInt8?
    /// Room sections: the offer's id for the transport-wide sequence number
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2), accepted with `transport-cc`
    /// feedback so the sender's bandwidth estimation gets our arrival times, if offered.
    public let transportCCExtensionID: UInt8?
    /// Room video sections the offerer only receives in: its `rtx` payload type for our codec
    /// (RFC 4588), on which we send retransmissions from an SSRC of their own.
    public let rtxPayloadType: UInt8?
    /// Room video sections the offerer receives in: the id of `abs-send-time`
    /// (webrtc.org/experiments/rtp-hdrext/abs-send-time), which we stamp on what we forward so the
    /// receiver's delay-based estimator can run and send its estimate back (REMB).
    public let absSendTimeExtensionID: UInt8?
    /// Room video sections: the simulcast streams the offerer sends (`OfferedSimulcast`), accepted
    /// in the answer; nil when it offered none we can take.
    public let simulcast: OfferedSimulcast?

    static let audioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    static let transportCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    static let absSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"

    public var isAccepted: Bool { codec != nil }

    /// Audio with Generic NACK negotiated (`a=rtcp-fb:PT nack`, RFC 4585 §4.2).
    public var audioNACK: Bool {
        codec?.audio != nil && genericNACK
    }

    /// Generic NACK negotiated (`a=rtcp-fb:PT nack`, RFC 4585 §4.2): audio of call sessions, video of rooms.
    public var genericNACK: Bool { rtcpFeedback.contains { $0.type == "nack" && $0.parameter == nil } }

    /// Our direction in the answer (RFC 3264 §6.1): the offer's, seen from our side.
    public var answerDirection: SDPDirection { direction.reversed }

    /// - Parameter forwarded: a room section, whose media the forwarder passes on as it comes:
    ///   keyframe requests only, no telephone events or Generic NACK on audio; RED around Opus.
    init(offer: SessionDescription, index: Int, codec choice: Choice, forwarded: Bool = false) {
        let media = offer.media[index]
        self.index = index
        mediaType = media.mediaType
        mid = media.mid
        proto = media.proto
        direction = offer.direction(for: media)
        codec = choice.codec
        payloadType = choice.payloadType
        formatParameters = media.formatParameters(for: choice.payloadType)?.parameterString
        let red = choice.codec == .audio(.opus) ? media.redundancyPayloadType(wrapping: choice.payloadType, among: media.payloadTypes) : nil
        if case .video = choice.codec {
            // A room also answers Generic NACK on video (RFC 4585 §6.2.1), per hop.
            rtcpFeedback = media.rtcpFeedback(for: choice.payloadType).filter { feedback in
                (feedback.type == "nack" && (feedback.parameter == "pli" || (forwarded && feedback.parameter == nil)))
                    || (feedback.type == "ccm" && feedback.parameter == "fir")
                    || (forwarded && (feedback.type == "transport-cc" || feedback.type == "goog-remb"))
            }
            telephoneEventPayloadType = nil
            redPayloadType = nil
        } else if forwarded {
            rtcpFeedback = media.rtcpFeedback(for: choice.payloadType).filter { $0.type == "transport-cc" }
            telephoneEventPayloadType = nil
            redPayloadType = red
        } else {
            // Audio: Generic NACK (RFC 4585 §4.2, `a=rtcp-fb:111 nack`), answered from a packet cache.
            rtcpFeedback = media.rtcpFeedback(for: choice.payloadType).filter { $0.type == "nack" && $0.parameter == nil }
            telephoneEventPayloadType = Self.pickTelephoneEvent(media, clockRate: choice.codec.clockRate)
            redPayloadType = red
        }
        telephoneEventFormatParameters = telephoneEventPayloadType.flatMap { media.formatParameters(for: $0)?.parameterString }
        remoteSSRCs = media.ssrcs
        // RFC 8285 §4.2: one-byte ids 1–14 (what browsers offer for it).
        audioLevelExtensionID = forwarded && choice.codec.audio != nil ? Self.oneByteID(of: Self.audioLevelURI, in: media) : nil
        transportCCExtensionID = forwarded ? Self.oneByteID(of: Self.transportCCURI, in: media) : nil
        simulcast = forwarded && choice.codec.audio == nil && direction.sends ? OfferedSimulcast(media) : nil
        absSendTimeExtensionID = forwarded && choice.codec.audio == nil && direction.receives
            ? Self.oneByteID(of: Self.absSendTimeURI, in: media) : nil
        rtxPayloadType = forwarded && choice.codec.audio == nil && direction == .recvonly
            ? media.retransmissionPayloadType(for: choice.payloadType, clockRate: choice.codec.clockRate, among: media.payloadTypes)
            : nil
    }

    /// The offer's id for an extension URI, when it fits the one-byte form (RFC 8285 §4.2: 1–14,
    /// what browsers offer).
    static func oneByteID(of uri: String, in media: MediaDescription) -> UInt8? {
        media.extmaps.first { $0.uri == uri && (1...14).contains($0.id) }.map { UInt8($0.id) }
    }

    init(rejected media: MediaDescription, index: Int, offer: SessionDescription) {
        self.index = index
        mediaType = media.mediaType
        mid = media.mid
        proto = media.proto
        direction = offer.direction(for: media)
        codec = nil
        payloadType = 0
        formatParameters = nil
        rtcpFeedback = []
        telephoneEventPayloadType = nil
        telephoneEventFormatParameters = nil
        redPayloadType = nil
        remoteSSRCs = media.ssrcs
        audioLevelExtensionID = nil
        transportCCExtensionID = nil
        simulcast = nil
        absSendTimeExtensionID = nil
        rtxPayloadType = nil
    }

    /// The section's payload formats for an RTP session (telephone events only if accepted; RED
    /// whenever offered, since every endpoint here takes it).
    public func payloadFormats(telephoneEvent: Bool) -> [RTPPayloadFormat] {
        guard let codec else { return [] }
        let kind: RTPPayloadFormat.Kind = codec.audio == nil ? .video : .audio
        var formats = [RTPPayloadFormat(payloadType: payloadType, kind: kind, clockRate: codec.clockRate, section: index)]
        if telephoneEvent, let event = telephoneEventPayloadType {
            formats.append(RTPPayloadFormat(payloadType: event, kind: .telephoneEvent, clockRate: codec.clockRate,
                                            section: index))
        }
        if let red = redPayloadType {
            formats.append(RTPPayloadFormat(payloadType: red, kind: .redundantAudio, clockRate: codec.clockRate,
                                            section: index))
        }
        return formats
    }

    /// The first `telephone-event` payload type at `clockRate`.
    static func pickTelephoneEvent(_ media: MediaDescription, clockRate: UInt32) -> UInt8? {
        media.payloadTypes.first { pt in
            guard let map = media.rtpMap(for: pt) else { return false }
            return map.encodingName.lowercased() == "telephone-event" && map.clockRate == clockRate
        }
    }
}
