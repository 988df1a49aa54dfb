/// What a datagram on a shared ICE 5-tuple carries, judged by its first byte (RFC 7983 §7):
///
///                      +----------------+
///                      |        [0..3] -+--> forward to STUN
///                      |                |
///                      |      [16..19] -+--> forward to ZRTP
///                      |                |
///          packet -->  |      [20..63] -+--> forward to DTLS
///                      |                |
///                      |      [64..79] -+--> forward to TURN Channel
///                      |                |
///                      |    [128..191] -+--> forward to RTP/RTCP
///                      +----------------+
///
/// Anything else is dropped. Pure predicates, like pion/webrtc's `internal/mux/muxfunc.go`.
public enum PacketKind: Sendable, Hashable, CaseIterable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    case rtpOrRtcp
    case unknown

    /// Classifies by the first byte alone (RFC 7983 §7).
    public static func classify(firstByte b: UInt8) -> PacketKind {
        switch b {
        case 0...3: .stun
        case 16...19: .zrtp
        case 20...63: .dtls
        case 64...79: .turnChannel
        case 128...191: .rtpOrRtcp
        default: .unknown
        }
    }

    /// Classifies a whole packet; an empty one is `.unknown`.
    public static func classify(_ packet: UnsafeRawBufferPointer) -> PacketKind {
        guard let first = packet.first else { return .unknown }
        return classify(firstByte: first)
    }

    /// True when an RTP/RTCP packet's second byte, the RTCP packet type, is 192–223: RTCP rather than
    /// RTP when both share a port (RFC 5761 §4). RTP payload types 64–95 are avoided for this reason.
    public static func isRTCP(secondByte: UInt8) -> Bool {
        (192...223).contains(secondByte)
    }

    /// True for a packet in the RTP/RTCP range whose second byte marks it as RTCP (RFC 5761 §4).
    public static func isRTCP(_ packet: UnsafeRawBufferPointer) -> Bool {
        packet.count >= 2 && classify(firstByte: packet[0]) == .rtpOrRtcp && isRTCP(secondByte: packet[1])
    }
}
