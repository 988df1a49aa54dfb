import ParleyRTP

/// The loop-confined state of one `RTPTransceiver`: the streams it sends, what the answer
/// accepted, and the stream it receives with its loss recovery.
struct ClientTransceiver {
    let handle: RTPTransceiver
    /// One per rid (simulcast), else one; none when the transceiver only receives.
    var layers: [ClientSendLayer]
    /// Set by the answer that accepted the section; nil before, or once stopped.
    var negotiated: NegotiatedTransceiver?
    /// Rejected by an answer (RFC 8829 §5.3.1): offered as port 0 from then on.
    var isStopped = false
    /// The section's index in our descriptions once offered (it never moves, RFC 8829 §5.2.2).
    var section: Int?
    /// Receiving: the SSRCs bound to the section (the answer's `a=ssrc`, or a packet's mid
    /// element) and Generic NACK toward the sender when the answer took it (video).
    var remoteSSRC: UInt32?
    var remoteRTXSSRC: UInt32?
    var nacks: RTPNACKRequester?
    var packetsReceived: UInt64 = 0
    var retransmissionsReceived = 0
    var nacksSent = 0
    /// Tests: the next packets of the received stream are dropped before SRTP (a downlink loss).
    var dropIncoming = 0

    var kind: RTPTransceiver.Kind { handle.kind }
    var mid: String { handle.mid }
    var isVideo: Bool { handle.kind == .video }
}
