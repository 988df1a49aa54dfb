/// What the peer tells a client `PeerConnection` about the media its transceivers send, and
/// what negotiation did to them: `PeerConnection.transceiverEvents`.
public enum TransceiverEvent: Sendable, Hashable {
    /// The peer asked for a key frame of what we send in `mid` (its stream `rid` for simulcast):
    /// a PLI (RFC 4585 §6.3.1) or FIR (RFC 5104 §4.3.1). The encoder should make one.
    case keyFrameRequested(mid: String, rid: String?)
    /// The peer's receive-side bandwidth estimate for our streams (REMB,
    /// draft-alvestrand-rmcat-remb-03), bits per second: what the encoders together should stay under.
    case receiverEstimatedBitrate(UInt64)
    /// An answer rejected the section (port 0, RFC 8829 §5.3.1) or left it out: it carries nothing more.
    case stopped(mid: String)
}
