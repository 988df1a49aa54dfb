/// Settings of a `JitterBuffer`. Times are in milliseconds, sizes in RTP timestamp units
/// (samples per channel at the RTP clock rate) or bytes.
public struct JitterBufferConfiguration: Sendable, Equatable {
    /// RTP clock rate of the stream: 48 000 for Opus (RFC 7587 §4.1), 8 000 for G.711.
    public var clockRate: Int
    /// The target delay never goes below this (20 ms: one typical frame).
    public var minimumDelayMs: Int
    /// The target delay never goes above this, whatever the jitter.
    public var maximumDelayMs: Int
    /// Target before anything is measured; it rises at once or decays slowly towards what is
    /// measured. The minimum by default: a higher start only adds delay that has to be taken out
    /// again by time-stretching, while the target rises within a few packets when there is jitter.
    public var initialDelayMs: Int
    /// The quantile of the relative-delay distribution the target follows (0.95: about 5 % of
    /// packets may come later than the target).
    public var quantile: Double
    /// Slots for packets and redundant blocks, allocated once.
    public var capacity: Int
    /// Largest payload a slot holds (Opus: at most 1 275 bytes per frame, RFC 6716 §3.4).
    public var maxPayloadBytes: Int
    /// The decoder can rebuild a lost frame from in-band FEC in the next packet (Opus LBRR).
    public var fecEnabled: Bool
    /// After this much uninterrupted concealment with nothing to play, the buffer stops concealing,
    /// plays silence and re-anchors at the next packet (a long outage or a DTX pause).
    public var maxConcealmentMs: Int

    public init(clockRate: Int, minimumDelayMs: Int = 20, maximumDelayMs: Int = 400, initialDelayMs: Int = 20,
                quantile: Double = 0.95, capacity: Int = 128, maxPayloadBytes: Int = 1_500, fecEnabled: Bool = false,
                maxConcealmentMs: Int = 100) {
        self.clockRate = max(clockRate, 1)
        self.minimumDelayMs = max(minimumDelayMs, 0)
        self.maximumDelayMs = max(maximumDelayMs, self.minimumDelayMs)
        self.initialDelayMs = min(max(initialDelayMs, self.minimumDelayMs), self.maximumDelayMs)
        self.quantile = min(max(quantile, 0.5), 0.999)
        self.capacity = max(capacity, 4)
        self.maxPayloadBytes = max(maxPayloadBytes, 1)
        self.fecEnabled = fecEnabled
        self.maxConcealmentMs = max(maxConcealmentMs, 0)
    }
}

/// One received RTP packet as the jitter buffer sees it (the payload goes alongside).
public struct JitterBufferPacket: Sendable, Equatable {
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// RFC 3551 §4.1: set on the first packet of a talkspurt (after silence suppression).
    public var marker: Bool
    public var payloadType: UInt8
    /// When the packet arrived, in microseconds of the receiver's monotonic clock.
    public var arrivalTime: Int64
    /// Samples per channel the payload decodes to (the decoder's `frameSamples`); nil when unknown,
    /// then the last known frame duration is assumed.
    public var duration: Int?
    /// The packet was asked for again (RFC 4585 NACK): played if it comes in time, but its
    /// lateness measures the request, not the network, so it never raises the target delay.
    public var isRetransmission = false

    public init(sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool = false, payloadType: UInt8 = 0,
                arrivalTime: Int64, duration: Int? = nil) {
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.marker = marker
        self.payloadType = payloadType
        self.arrivalTime = arrivalTime
        self.duration = duration
    }
}

/// What became of an inserted packet or redundant block.
public enum JitterBufferInsertResult: Sendable, Equatable {
    /// Stored for playout.
    case inserted
    /// This sequence number was already received (or, for a redundant block, the frame is already held).
    case duplicate
    /// Its playout time has passed: discarded (a late packet's RED blocks may still be inserted).
    case late
    /// No free slot, or the payload is larger than a slot: discarded.
    case discarded
}

/// An opaque handle to a stored payload, for `JitterBuffer.withPayload`; valid until the next insert.
public struct JitterBufferSlot: Hashable, Sendable {
    let index: Int
}

/// A delay-adaptation request carried with a decoded frame: shorten or lengthen it by about one
/// pitch period (see `TimeStretcher`), by at most `maxSamples` samples per channel.
///
/// Stretching active speech is audible, and PESQ marks every time warp inside an utterance down,
/// so a request that is not `urgent` is carried out only in a pause (100 ms of quiet: between
/// phrases, not in a stop consonant); an urgent one (the delay far from the target, or too long
/// away from it) on any frame that is quiet or periodic enough.
public enum TimeStretchRequest: Sendable, Equatable {
    case none
    /// The buffer holds more than the target: remove up to `maxSamples`.
    case accelerate(maxSamples: Int, urgent: Bool)
    /// The buffer holds less than the target: insert up to `maxSamples`.
    case expand(maxSamples: Int, urgent: Bool)
}

/// What to play next, decided by `JitterBuffer.nextFrame(at:)`.
public struct JitterBufferDecision: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Decode the frame's own packet.
        case decode(JitterBufferSlot)
        /// The frame's packet is missing: decode its redundant copy from a later RED packet (RFC 2198).
        case decodeRedundant(JitterBufferSlot)
        /// The frame's packet is missing and no RED copy exists: rebuild it from the in-band FEC of
        /// the next packet, held in this slot (`AudioDecoder.recoverFromFEC`); conceal if that fails.
        case recoverFromFEC(JitterBufferSlot)
        /// Nothing exists for the frame: the decoder's loss concealment.
        case conceal
        /// Before the first packet, in a DTX pause, or while re-anchoring at a talkspurt start:
        /// silence (comfort noise), the playout point does not move.
        case silence
    }

    public var action: Action
    /// RTP timestamp of the frame (for `.silence`, of the current playout point).
    public var timestamp: UInt32
    /// Samples per channel, at the RTP clock rate, to produce.
    public var samples: Int
    /// Payload type of the payload to decode (0 for concealment and silence).
    public var payloadType: UInt8
    /// Delay adaptation to apply to the decoded frame.
    public var timeStretch: TimeStretchRequest
    /// Microseconds from the arrival of the packet used to this decision, when the frame leaves
    /// the buffer (WebRTC's jitterBufferDelay for this frame); nil for concealment and silence.
    public var jitterBufferDelay: Int64?
}

/// Counters and levels of a `JitterBuffer` (the WebRTC inbound-rtp names where one exists).
public struct JitterBufferStatistics: Sendable, Equatable {
    /// Delay of the last frame beyond the fastest packet's path, when it left the buffer: the
    /// quantity the target applies to (NetEq's relative delay).
    public var currentDelayMs: Double = 0
    /// The target delay the buffer steers to.
    public var targetDelayMs: Double = 0
    /// Audio held ahead of the playout point (newest held frame's end minus the playout point).
    public var bufferedMs: Double = 0
    /// Packets given to `insert`, duplicates and late ones included.
    public var packetsReceived = 0
    public var duplicatePackets = 0
    /// Packets that arrived after their playout time.
    public var latePackets = 0
    /// Packets never played: late, refused for lack of room, flushed at an SSRC change, or skipped.
    public var discardedPackets = 0
    /// Frames decoded from their own packet.
    public var decodedFrames = 0
    /// Samples per channel produced by the decoder's concealment.
    public var concealedSamples = 0
    /// Runs of consecutive concealed frames.
    public var concealmentEvents = 0
    /// Samples per channel of silence (before the first packet, DTX pauses, re-anchoring).
    public var silentSamples = 0
    /// Lost frames rebuilt from the in-band FEC of the next packet.
    public var fecRecoveredFrames = 0
    /// Lost frames rebuilt from a redundant RED block.
    public var redRecoveredFrames = 0
    /// Frames shortened / lengthened by time-scale modification, and the samples removed / inserted.
    public var accelerateCount = 0
    public var expandCount = 0
    public var acceleratedSamples = 0
    public var expandedSamples = 0
    public var ssrcChanges = 0
    /// Same-SSRC timestamp discontinuities that forced a reset.
    public var timelineResets = 0
    /// Sum over emitted frames of the time from arrival to playout (seconds), and the frames counted
    /// (WebRTC jitterBufferDelay / jitterBufferEmittedCount, per frame rather than per sample).
    public var totalJitterBufferDelay: Double = 0
    public var emittedFrames = 0
    /// Median and 95th percentile of the per-frame jitter-buffer delay since the start (1 ms resolution).
    public var jitterBufferDelayP50Ms: Double = 0
    public var jitterBufferDelayP95Ms: Double = 0

    public init() {}
}
