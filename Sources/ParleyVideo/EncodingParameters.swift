/// The most this client sends (the seed's `EncodingParameters`), bits per second; 0 sets no
/// limit. The audio limit caps each audio track's Opus encoder (at most its 40 kbit/s default;
/// no effect on G.711's fixed 64 kbit/s); the video limit caps each video track's VP8 encoders
/// (all simulcast layers together), which otherwise aim at 95 % of the server's estimate of our
/// uplink (REMB): they aim at the lower of the two. Payload bitrates: RTP and SRTP headers and
/// retransmissions come on top.
public struct EncodingParameters: Sendable, Hashable {
    public var audioBitrate: UInt
    public var videoBitrate: UInt

    public init(audioBitrate: UInt, videoBitrate: UInt) {
        self.audioBitrate = audioBitrate
        self.videoBitrate = videoBitrate
    }

    /// The audio cap, nil when none.
    var audioLimit: Int? { audioBitrate == 0 ? nil : Int(clamping: audioBitrate) }
    /// The video cap, nil when none.
    var videoLimit: Int? { videoBitrate == 0 ? nil : Int(clamping: videoBitrate) }
}
