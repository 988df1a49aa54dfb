/// What happens to a SIP leg's media, in order, delivered off the media loop.
public enum SIPMediaEvent: Sendable, Hashable {
    /// The first RTP packet arrived (from `source`, which the leg now sends to).
    case receiving(legID: String, source: String)
    /// A key the peer pressed (RFC 4733 telephone-event).
    case digit(legID: String, Character)
    /// The peer sent media, then nothing for `SIPMediaServer.Configuration.silenceTimeout` while
    /// the leg expected media: the peer is gone (RFC 3550 §6.3.5's idea applied to the whole leg).
    case silent(legID: String)
    /// The leg was closed (always the last event).
    case closed(legID: String)
}

/// One received audio packet handed to a tap (recording, mixing, transcoding): its payload copied
/// out of the receive buffer.
public struct SIPMediaTapPacket: Sendable {
    public var payload: [UInt8]
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var payloadType: UInt8

    public init(payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32, payloadType: UInt8) {
        self.payload = payload
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.payloadType = payloadType
    }
}

/// Counters of the SIP media server (all legs, open and closed).
public struct SIPMediaStatistics: Sendable, Hashable {
    public var legsOpened = 0
    public var legs = 0
    public var rtpReceived = 0
    public var rtcpReceived = 0
    /// Malformed, unauthenticated (SRTP), replayed, unknown payload type, or from a stranger.
    public var dropped = 0
    public var forwarded = 0
    /// Of `forwarded`: packets from a leg on another transport (`openHandoff`), sent without decoding.
    public var handedOver = 0
    public var played = 0
    public var digitsReceived = 0
    public var digitsSent = 0

    public init() {}
}
