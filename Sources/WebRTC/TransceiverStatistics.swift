/// A snapshot of one transceiver: what the answer accepted, and its streams' counters.
public struct TransceiverStatistics: Sendable, Hashable {
    /// One stream we send (the track, or one simulcast layer).
    public struct SendStream: Sendable, Hashable {
        public var rid: String?
        public var ssrc: UInt32
        public var rtxSSRC: UInt32?
        public var packetsSent: UInt64
        /// RTP payload bytes of `packetsSent` (the encoder's output: no headers, no retransmissions).
        public var payloadBytesSent: UInt64
        /// Packets sent again for the peer's NACKs (RFC 4585 §6.2.1), as RTX when negotiated.
        public var retransmissionsSent: Int
        /// PLIs and FIRs the peer sent for this stream.
        public var keyFrameRequests: Int
    }

    public var mid: String
    /// An answer accepted the section (and it was not stopped since).
    public var isNegotiated: Bool
    public var isStopped: Bool
    public var codec: MediaCodec?
    public var payloadType: UInt8?
    /// The answer's RTX payload type for the codec (RFC 4588), if any.
    public var rtxPayloadType: UInt8?
    /// Generic NACK negotiated (RFC 4585 §4.2).
    public var isNACKNegotiated: Bool
    public var sendStreams: [SendStream]
    /// The SSRC we receive in the section (the answer's `a=ssrc`, or learnt by mid) and its RTX SSRC.
    public var remoteSSRC: UInt32?
    public var remoteRTXSSRC: UInt32?
    public var packetsReceived: UInt64
    /// Packets that came as retransmissions (RTX, or ones we asked for again).
    public var retransmissionsReceived: Int
    /// NACKs we sent for the received stream.
    public var nacksSent: Int

    init(_ transceiver: ClientTransceiver) {
        mid = transceiver.mid
        isNegotiated = transceiver.negotiated != nil
        isStopped = transceiver.isStopped
        codec = transceiver.negotiated?.codec
        payloadType = transceiver.negotiated?.payloadType
        rtxPayloadType = transceiver.negotiated?.rtxPayloadType
        isNACKNegotiated = transceiver.negotiated?.genericNACK ?? false
        sendStreams = transceiver.layers.map {
            SendStream(rid: $0.rid, ssrc: $0.ssrc, rtxSSRC: $0.rtxSSRC, packetsSent: $0.packetsSent, payloadBytesSent: $0.payloadBytesSent,
                       retransmissionsSent: $0.retransmissionsSent, keyFrameRequests: $0.keyFrameRequests)
        }
        remoteSSRC = transceiver.remoteSSRC
        remoteRTXSSRC = transceiver.remoteRTXSSRC
        packetsReceived = transceiver.packetsReceived
        retransmissionsReceived = transceiver.retransmissionsReceived
        nacksSent = transceiver.nacksSent
    }
}
