/// The per-SSRC state of one direction of an SRTP session (RFC 3711 §3.2.1: the rollover counter,
/// the highest sequence number, the replay lists and the SRTCP index), found by SSRC. Keys are
/// shared by every SSRC of the session, so a new SSRC costs only this state. The table holds at
/// most `capacity` streams and forgets the least recently used when a new one needs room.
struct SRTPStreamTable {
    struct Stream {
        let ssrc: UInt32
        /// Inbound: the RTP indices (ROC ‖ SEQ, §3.3.1) authenticated, and the SRTCP indices.
        var rtpWindow: SRTPReplayWindow
        var rtcpWindow: SRTPReplayWindow
        /// Outbound: the highest RTP index sent, nil before the first packet.
        var highestSent: UInt64?
        /// The last SRTCP index sent (§3.4); the first packet carries 1, as libsrtp does.
        var rtcpSent: UInt32 = 0
        var lastUse: UInt64 = 0
    }

    var streams: [Stream] = []
    private let capacity: Int
    private let rtpWindowSize: Int
    private var clock: UInt64 = 0

    /// A table whose streams keep replay windows of `rtpWindowSize` RTP indices (an outbound table
    /// passes 0: it keeps no windows).
    init(capacity: Int = 64, rtpWindowSize: Int) {
        self.capacity = capacity
        self.rtpWindowSize = rtpWindowSize
        streams.reserveCapacity(4)
    }

    /// The position of `ssrc`'s stream, if there is one.
    func position(of ssrc: UInt32) -> Int? {
        streams.firstIndex { $0.ssrc == ssrc }
    }

    /// The position of `ssrc`'s stream, created (evicting the least recently used at capacity) if needed.
    mutating func positionCreating(_ ssrc: UInt32) -> Int {
        clock &+= 1
        if let position = position(of: ssrc) {
            streams[position].lastUse = clock
            return position
        }
        // RFC 3711 §3.3.2 asks for a window of at least 64; SRTCP uses 128, as libsrtp does.
        let stream = Stream(ssrc: ssrc, rtpWindow: SRTPReplayWindow(size: rtpWindowSize),
                            rtcpWindow: SRTPReplayWindow(size: rtpWindowSize == 0 ? 0 : 128), lastUse: clock)
        if streams.count < capacity {
            streams.append(stream)
            return streams.count - 1
        }
        let oldest = streams.indices.min { streams[$0].lastUse < streams[$1].lastUse }!
        streams[oldest] = stream
        return oldest
    }

    /// The packet index a sequence number most likely stands for (RFC 3711 §3.3.1, Appendix A),
    /// guessed from the highest index seen; nil when it would precede index 0.
    static func estimateIndex(sequence: UInt16, highest: UInt64?) -> UInt64? {
        guard let highest else { return UInt64(sequence) }
        let roc = highest >> 16, last = Int(highest & 0xFFFF), seq = Int(sequence)
        var guess = roc
        if last < 0x8000 {
            if seq - last > 0x8000 {
                guard roc > 0 else { return nil }
                guess = roc - 1
            }
        } else if last - 0x8000 > seq {
            guess = roc + 1
        }
        return guess << 16 | UInt64(sequence)
    }
}
