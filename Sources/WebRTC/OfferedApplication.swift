import SDP

/// The data channel section of a room offer (RFC 8841 §4, RFC 8831 §5):
/// `m=application 9 UDP/DTLS/SCTP webrtc-datachannel`, bundled with the offer's first section (or
/// the only section of a data-only offer). One SCTP association runs over the session's DTLS; the
/// answer accepts it with our port and our largest message.
public struct OfferedApplication: Sendable, Hashable {
    /// Index in the offer's sections.
    public let index: Int
    public let mid: String?
    /// `UDP/DTLS/SCTP` or `TCP/DTLS/SCTP`, echoed in the answer.
    public let proto: String
    /// The offerer's SCTP port (`a=sctp-port`, RFC 8841 §5; 5000 when absent).
    public let sctpPort: UInt16
    /// The largest message the offerer takes (`a=max-message-size`, RFC 8841 §6: 65,536 when
    /// absent; 0 means no limit, read as `Int.max`).
    public let maxMessageSize: Int

    /// Our SCTP port, in every answer.
    public static let localPort: UInt16 = 5000
    /// The largest message we take and forward, announced in the answer (RFC 8841 §6): a data
    /// track message bigger than this is dropped, whoever sent it.
    public static let localMaxMessageSize = 65_536
    /// RFC 8841 §6.1: what a peer that announced nothing takes.
    static let defaultMaxMessageSize = 65_536

    /// Reads an `m=application` section, or nil when it is not WebRTC's data channel section
    /// (another proto or format, rejected, or a port outside 1–65535).
    init?(_ media: MediaDescription, index: Int) {
        let proto = media.proto.uppercased()
        guard media.mediaType == "application", !media.isRejected, proto == "UDP/DTLS/SCTP" || proto == "TCP/DTLS/SCTP",
              media.formats.contains("webrtc-datachannel") else { return nil }
        let port = media.sctpPort ?? 5000
        guard port != 0 else { return nil }
        self.index = index
        mid = media.mid
        self.proto = media.proto
        sctpPort = port
        maxMessageSize = media.maxMessageSize.map { $0 == 0 || $0 > UInt64(Int.max) ? Int.max : Int($0) }
            ?? Self.defaultMaxMessageSize
    }

    /// The largest message we send the peer: its limit and ours, whichever is smaller.
    public var sendLimit: Int { min(maxMessageSize, Self.localMaxMessageSize) }

    /// Whether `media` is a data channel section we would take.
    static func isDataChannelSection(_ media: MediaDescription) -> Bool {
        OfferedApplication(media, index: 0) != nil
    }
}
