import SDP
import SFU

/// The simulcast streams a room peer offers to send in one video section (RFC 8853
/// `a=simulcast:send`, each stream an RFC 8851 `a=rid:… send`), and the header extensions that
/// tell them apart on the wire: the section's mid (RFC 8843 §15.2) and each stream's RtpStreamId
/// (RFC 8852 §3.1). Browsers announce no SSRCs for these streams, so the extensions are the only
/// way to bind an arriving SSRC to its stream.
public struct OfferedSimulcast: Sendable, Hashable {
    /// The rids in the offer's order (the first alternative of each stream, RFC 8853 §5.1),
    /// at most `SimulcastLayers.maxLayers`.
    public let rids: [String]
    public let midExtensionID: UInt8
    public let streamIDExtensionID: UInt8

    static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    static let streamIDURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"

    /// Nil when the section offers no send simulcast, or not both extensions in the one-byte form.
    init?(_ media: MediaDescription) {
        guard let simulcast = media.simulcast, !simulcast.send.isEmpty,
              let mid = OfferedMediaSection.oneByteID(of: Self.midURI, in: media),
              let streamID = OfferedMediaSection.oneByteID(of: Self.streamIDURI, in: media) else { return nil }
        let sent = Set(media.rids.filter { $0.direction == .send }.map(\.id))
        // RFC 8853 §5.3: a rid in the simulcast list must have its `a=rid` line.
        let rids = simulcast.send.compactMap { stream in stream.first { sent.contains($0.rid) }?.rid }
        guard !rids.isEmpty else { return nil }
        self.rids = Array(rids.prefix(SimulcastLayers.maxLayers))
        midExtensionID = mid
        streamIDExtensionID = streamID
    }

    /// What the answer says (RFC 8853 §5.3): each rid as one we receive, and `a=simulcast:recv`
    /// with them in the same order.
    var answerAttributes: [SDPAttribute] {
        rids.map { SDPAttribute(name: "rid", value: SDPRID(id: $0, direction: .recv).sdpValue) }
            + [SDPAttribute(name: "simulcast",
                            value: SDPSimulcast(receive: rids.map { [SDPSimulcast.Alternative(rid: $0)] }).sdpValue)]
    }

    /// The extmaps the answer accepts for them (RFC 8285 §6: we only read them).
    func extmaps(direction: SDPDirection?) -> [SDPExtmap] {
        [SDPExtmap(id: UInt16(midExtensionID), direction: direction, uri: Self.midURI),
         SDPExtmap(id: UInt16(streamIDExtensionID), direction: direction, uri: Self.streamIDURI)]
    }
}
