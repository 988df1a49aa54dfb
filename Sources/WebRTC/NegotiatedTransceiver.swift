import SDP

/// What an answer accepted for one of our transceivers' sections: the codec and its payload type,
/// RTX (RFC 4588), the header extensions both sides use (RFC 8285 §6: only ids the answer kept are
/// sent), the RTCP feedback (RFC 4585 §4.2), and the SSRCs the answerer sends us in it.
struct NegotiatedTransceiver: Sendable, Hashable {
    /// The section's index in both descriptions.
    var section: Int
    var codec: MediaCodec
    var payloadType: UInt8
    /// The answer's `rtx` payload type with `apt` our codec's, if any.
    var rtxPayloadType: UInt8?
    var midExtensionID: UInt8?
    var streamIDExtensionID: UInt8?
    var repairedStreamIDExtensionID: UInt8?
    var absSendTimeExtensionID: UInt8?
    var transportCCExtensionID: UInt8?
    var audioLevelExtensionID: UInt8?
    var genericNACK = false
    /// PLI (RFC 4585 §6.3.1) or FIR (RFC 5104 §7.1): we may ask the peer for key frames.
    var keyFrameRequests = false
    /// The answerer's media SSRC in the section and its retransmission SSRC (`a=ssrc-group:FID`).
    var remoteSSRC: UInt32?
    var remoteRTXSSRC: UInt32?

    static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    static let streamIDURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    static let repairedStreamIDURI = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"

    /// Reads the answer's section `section` (accepted with `codec` on `payloadType`).
    init(answer: SessionDescription, section: Int, codec: MediaCodec, payloadType: UInt8) {
        let media = answer.media[section]
        self.section = section
        self.codec = codec
        self.payloadType = payloadType
        rtxPayloadType = codec.audio == nil
            ? media.retransmissionPayloadType(for: payloadType, clockRate: codec.clockRate, among: media.payloadTypes) : nil
        func id(_ uri: String) -> UInt8? {
            answer.extmaps(for: media).first { $0.uri == uri && (1...14).contains($0.id) }.map { UInt8($0.id) }
        }
        midExtensionID = id(Self.midURI)
        streamIDExtensionID = id(Self.streamIDURI)
        repairedStreamIDExtensionID = id(Self.repairedStreamIDURI)
        absSendTimeExtensionID = id(OfferedMediaSection.absSendTimeURI)
        transportCCExtensionID = id(OfferedMediaSection.transportCCURI)
        audioLevelExtensionID = id(OfferedMediaSection.audioLevelURI)
        let feedback = media.rtcpFeedback(for: payloadType)
        genericNACK = feedback.contains { $0.type == "nack" && $0.parameter == nil }
        keyFrameRequests = feedback.contains { ($0.type == "nack" && $0.parameter == "pli") || ($0.type == "ccm" && $0.parameter == "fir") }
        let fid = media.ssrcGroups.first { $0.semantics == "FID" && $0.ssrcs.count == 2 }
        remoteSSRC = fid?.ssrcs[0] ?? media.ssrcs.first
        remoteRTXSSRC = rtxPayloadType == nil ? nil : fid?.ssrcs[1]
    }
}
