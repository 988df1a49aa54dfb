import ParleyCore
import ParleyNet

/// One data channel of one session, by its label.
public struct DataChannelAddress: Sendable, Hashable {
    public var session: String
    public var label: String

    public init(session: String, label: String) {
        self.session = session
        self.label = label
    }
}

/// Data tracks of room sessions (RFC 8831, RFC 8832): a room session whose offer had a data
/// channel section runs an SCTP association over its DTLS once connected; each channel its peer
/// opens is reported (`PeerSessionEvent.dataChannelOpened`, by label) and may be routed to
/// channels the server opens toward other sessions.
extension MediaTransportServer {
    /// From now on every message the peer of `source.session` sends on its channel labelled
    /// `source.label` is sent on a channel of `sink.session` labelled `sink.label`, which the
    /// server opens (DCEP, RFC 8832 §5.1) with the source channel's ordering, reliability
    /// (`maxRetransmits` or `maxPacketLifeTime`) and protocol — at once, or as soon as the sink's
    /// association is up. A nil `source` closes the sink's channel of that label (stream reset,
    /// RFC 8831 §6.7). False when a session is unknown or not a room session, the sink's offer
    /// had no data channel section, the source has no open channel of that label, or no stream is
    /// free.
    public func routeData(_ source: DataChannelAddress?, to sink: DataChannelAddress) async -> Bool {
        let core = self.core
        return await onLoop { core.value.routeData(source, to: sink) }
    }
}
