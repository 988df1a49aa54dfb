import ParleyNet
import ParleySRTP

/// What offer/answer (RFC 3264) settled for one SIP leg's audio stream: where to send, in which
/// payload format, and with which SDES-SRTP keys (RFC 4568), if any. The SIP stack negotiates it;
/// the media server only carries it out.
public struct SIPMediaParameters: Sendable, Hashable {
    /// Where the peer's SDP says to send RTP (`c=` and `m=`); replaced by where its RTP comes from
    /// once the first packet arrives (symmetric RTP, RFC 4961).
    public var remote: SocketAddress?
    /// Where RTCP goes: the peer's `a=rtcp` (RFC 3605), its RTP address under `a=rtcp-mux`
    /// (RFC 5761), else its RTP port + 1.
    public var remoteRTCP: SocketAddress?
    /// The codec's payload type and RTP clock rate, as both ends use them.
    public var payloadType: UInt8
    public var clockRate: UInt32
    /// RFC 4733 `telephone-event` at the codec's clock rate, when negotiated.
    public var telephoneEventPayloadType: UInt8?
    /// Our key and the peer's (SDES, RFC 4568); nil for plain RTP.
    public var srtp: SRTPKeyingMaterial?
    /// False while the peer holds the call (`a=sendonly`/`inactive`, RFC 3264 §8.4): we send nothing.
    public var sends: Bool
    /// False while we hold the peer or it sends nothing: the RTP silence timeout does not apply.
    public var receives: Bool

    public init(remote: SocketAddress?, remoteRTCP: SocketAddress? = nil, payloadType: UInt8, clockRate: UInt32,
                telephoneEventPayloadType: UInt8? = nil, srtp: SRTPKeyingMaterial? = nil, sends: Bool = true,
                receives: Bool = true) {
        self.remote = remote
        self.remoteRTCP = remoteRTCP
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.telephoneEventPayloadType = telephoneEventPayloadType
        self.srtp = srtp
        self.sends = sends
        self.receives = receives
    }
}

/// A leg as the SDP of our offer or answer needs it: its id and where it receives.
public struct SIPMediaLegAddress: Sendable, Hashable {
    public let id: String
    /// The address to write in `c=` (the server's advertised host).
    public let host: String
    /// The RTP port (RTCP is multiplexed on it: `a=rtcp:<port>`, RFC 3605, and `a=rtcp-mux`).
    public let port: Int
}
