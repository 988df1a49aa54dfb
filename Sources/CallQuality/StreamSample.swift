/// Cumulative counters of one RTP stream, as a statistics report holds them (RFC 3550 §6.4).
public struct StreamCounters: Sendable, Hashable, Codable {
    /// Packets sent (local stream) or received (remote stream).
    public var packets: UInt64
    /// Payload bytes sent or received.
    public var bytes: UInt64
    /// Cumulative number of packets lost (RFC 3550 §6.4.1; negative when duplicates outnumber
    /// losses). For the local stream, as the far end's receiver reports it.
    public var packetsLost: Int64

    public init(packets: UInt64 = 0, bytes: UInt64 = 0, packetsLost: Int64 = 0) {
        self.packets = packets
        self.bytes = bytes
        self.packetsLost = packetsLost
    }
}

/// One stream's figures over one sampling interval (one second in the SDKs): what the quality
/// monitors consume. The local stream is what this side sends (loss and jitter as the far end
/// reports them in RTCP receiver reports; the level is the microphone's); the remote stream is what
/// it receives (loss and jitter measured here; the level is what is played out).
public struct StreamSample: Sendable, Hashable, Codable {
    /// Packets sent or received in the interval.
    public var packets: Int
    /// Bytes sent or received in the interval.
    public var bytes: Int
    /// Packets lost in the interval.
    public var packetsLost: Int
    /// Loss in the interval, in percent (0–100).
    public var lossPercent: Double
    /// Interarrival jitter (RFC 3550 §6.4.1) in milliseconds, nil while unknown.
    public var jitterMilliseconds: Double?
    /// Audio level readings of the interval (microphone for local, playout for remote).
    public var audioLevel: AudioLevelSummary

    /// A sample from interval figures. Without `lossPercent` the loss is `packetsLost / (packets +
    /// packetsLost)` × 100, and 0 when nothing was expected, as twilio.js computes
    /// `packetsLostFraction` (`lib/twilio/statsMonitor.ts`, `_createSample`). Pass `lossPercent` to use
    /// an RTCP fraction lost instead (RFC 3550 §6.4.1: fraction / 256 × 100).
    public init(packets: Int = 0, bytes: Int = 0, packetsLost: Int = 0, lossPercent: Double? = nil,
                jitterMilliseconds: Double? = nil, audioLevel: AudioLevelSummary = AudioLevelSummary()) {
        self.packets = max(packets, 0)
        self.bytes = max(bytes, 0)
        self.packetsLost = max(packetsLost, 0)
        self.jitterMilliseconds = jitterMilliseconds
        self.audioLevel = audioLevel
        if let lossPercent, lossPercent.isFinite {
            self.lossPercent = min(max(lossPercent, 0), 100)
        } else {
            let expected = self.packets + self.packetsLost
            self.lossPercent = expected > 0 ? Double(self.packetsLost) / Double(expected) * 100 : 0
        }
    }

    /// The interval between two cumulative snapshots of the same stream.
    public init(from previous: StreamCounters, to current: StreamCounters, jitterMilliseconds: Double? = nil,
                audioLevel: AudioLevelSummary = AudioLevelSummary()) {
        func delta(_ a: UInt64, _ b: UInt64) -> Int { b >= a ? Int(clamping: b - a) : 0 }
        let lost = current.packetsLost.subtractingReportingOverflow(previous.packetsLost)
        self.init(packets: delta(previous.packets, current.packets), bytes: delta(previous.bytes, current.bytes),
                  packetsLost: lost.overflow ? 0 : Int(clamping: lost.partialValue),
                  jitterMilliseconds: jitterMilliseconds, audioLevel: audioLevel)
    }
}
