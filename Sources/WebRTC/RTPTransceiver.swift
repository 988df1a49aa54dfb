/// One m-section of a client `PeerConnection` in the W3C `RTCRtpTransceiver` spirit (unified plan,
/// RFC 8829 §3.4.1): a track we send (`sendonly`, optionally simulcast with one RTP stream per rid,
/// RFC 8853), a slot we receive in (`recvonly`), or both. Made by
/// `PeerConnection.addTransceiver(kind:direction:sendEncodings:streamID:trackID:)`; its `mid` is
/// fixed when it is added and kept across every later offer.
public final class RTPTransceiver: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case audio, video
    }

    /// W3C `RTCRtpTransceiverDirection` (RFC 8866 §6.7 from our side).
    public enum Direction: String, Sendable, Hashable, CaseIterable {
        case sendrecv, sendonly, recvonly

        public var sends: Bool { self != .recvonly }
        public var receives: Bool { self != .sendonly }
    }

    /// The section's `a=mid` (RFC 8843 §15.1): what room signaling names the track or slot by.
    public let mid: String
    public let kind: Kind
    public let direction: Direction
    /// The rids of the simulcast streams we send (RFC 8851 `a=rid:… send`), lowest layer first by
    /// convention; empty for one stream without a rid.
    public let sendEncodings: [String]
    /// `a=msid` (RFC 8830 §2): the stream and track ids announced for what we send.
    public let streamID: String
    public let trackID: String
    /// What the peer sends us in this section, in arrival order (SRTP removed; RTX unwrapped,
    /// RFC 4588 §4: `isRetransmission` set). Bounded (the newest 2,048 kept); finishes when the
    /// connection ends.
    public let received: AsyncStream<PeerConnection.ReceivedRTP>
    let receivedSink: AsyncStream<PeerConnection.ReceivedRTP>.Continuation
    /// Index in the connection's transceiver list.
    let index: Int
    /// The mid's bytes, compared in place with a packet's mid element.
    let midBytes: [UInt8]

    init(index: Int, mid: String, kind: Kind, direction: Direction, sendEncodings: [String], streamID: String,
         trackID: String) {
        self.index = index
        self.mid = mid
        midBytes = Array(mid.utf8)
        self.kind = kind
        self.direction = direction
        self.sendEncodings = sendEncodings
        self.streamID = streamID
        self.trackID = trackID
        let (stream, sink) = AsyncStream<PeerConnection.ReceivedRTP>.makeStream(bufferingPolicy: .bufferingNewest(2048))
        received = stream
        receivedSink = sink
    }

    public static func == (lhs: RTPTransceiver, rhs: RTPTransceiver) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "transceiver \(mid) (\(kind.rawValue), \(direction.rawValue))" }
}
