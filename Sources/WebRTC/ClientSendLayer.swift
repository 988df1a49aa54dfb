import ParleyRTP

/// One RTP stream a client transceiver sends: the whole track, or one simulcast layer (its `rid`,
/// RFC 8852 §3.1). Its own SSRC (announced with `a=ssrc` unless simulcast), its retransmission
/// SSRC for video (RFC 4588 §8.3), sequence numbers, and what it sent lately to answer NACKs.
struct ClientSendLayer {
    let rid: String?
    let ssrc: UInt32
    let rtxSSRC: UInt32?
    /// The rid's bytes for the `rtp-stream-id` element, written without a conversion per packet.
    let ridBytes: [UInt8]
    var nextSequence: UInt16
    var nextRTXSequence: UInt16
    /// What went out, unprotected (RFC 4585 §6.2.1 NACKs are answered from it, re-protected,
    /// or wrapped as RTX); made when the answer takes Generic NACK.
    var cache: RTPRetransmissionCache?
    /// Our `RTPSession` send stream (sender reports), once negotiated.
    var sendStream: Int?
    var packetsSent: UInt64 = 0
    /// RTP payload bytes of `packetsSent` (headers and retransmissions not counted).
    var payloadBytesSent: UInt64 = 0
    var retransmissionsSent = 0
    var keyFrameRequests = 0
    /// Tests: the next packets are kept but not sent (an uplink loss).
    var dropNext = 0

    init(rid: String?, ssrc: UInt32, rtxSSRC: UInt32?) {
        self.rid = rid
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        ridBytes = rid.map { Array($0.utf8) } ?? []
        var random = SystemRandomNumberGenerator()
        nextSequence = .random(in: 0...UInt16.max, using: &random)
        nextRTXSequence = .random(in: 0...UInt16.max, using: &random)
    }

    /// Video: 512 packets of up to 1,300 bytes, more than a second of a 2.5 Mbit/s stream.
    /// Audio: the default ring (64 packets).
    static func makeCache(video: Bool) -> RTPRetransmissionCache {
        video ? RTPRetransmissionCache(capacity: 512, slotBytes: 1300) : RTPRetransmissionCache()
    }
}
