import STUN

/// What one datagram on the shared media port carries, from its first two bytes (RFC 7983 §7 for
/// the first byte, RFC 5761 §4 to split RTP from RTCP). Pure and allocation-free, like pion's
/// `internal/mux/muxfunc.go`.
///
/// ```
///   [0..3]     STUN  -> routed by the USERNAME's local ufrag, else by source address
///   [20..63]   DTLS  -> routed by source address
///   [128..191] RTP / RTCP (second byte 192...223) -> routed by source address
///   anything else (ZRTP, TURN channels, garbage) is dropped and counted
/// ```
public enum MediaPacketClass: Sendable, Hashable, CaseIterable {
    case stun
    case dtls
    case rtp
    case rtcp
    case unknown

    /// Classifies a datagram. RTP/RTCP need at least a 12/8-byte header to be considered at all.
    public static func classify(_ bytes: UnsafeRawBufferPointer) -> MediaPacketClass {
        // `classify(firstByte:)` rather than `PacketKind.classify(_:)`: the latter reads
        // `Collection.first`, which allocates per call in unoptimized builds.
        guard !bytes.isEmpty else { return .unknown }
        switch PacketKind.classify(firstByte: bytes[0]) {
        case .stun: return bytes.count >= STUNMessage.headerSize ? .stun : .unknown
        case .dtls: return bytes.count >= 13 ? .dtls : .unknown  // DTLS record header is 13 bytes
        case .rtpOrRtcp:
            guard bytes.count >= 8, bytes[0] >> 6 == 2 else { return .unknown }
            if PacketKind.isRTCP(secondByte: bytes[1]) { return .rtcp }
            return bytes.count >= 12 ? .rtp : .unknown
        case .zrtp, .turnChannel, .unknown: return .unknown
        }
    }

    /// `classify(_:)` on an array.
    public static func classify(_ bytes: [UInt8]) -> MediaPacketClass {
        bytes.withUnsafeBytes { classify($0) }
    }
}
