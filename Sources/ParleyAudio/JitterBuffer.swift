import WireKit

/// An adaptive jitter buffer for one incoming audio stream: a value-type state machine in the
/// style of WebRTC NetEq, pure (time comes in as microseconds of a monotonic clock) and without
/// decoding inside.
///
/// The owner inserts each received packet (and the redundant blocks of a RED packet, already
/// split, RFC 2198) and, whenever it needs audio, asks `nextFrame(at:)` what to play: decode a
/// frame, decode a RED copy of a lost frame, rebuild it from the next packet's in-band FEC,
/// conceal it, or play silence, plus a time-stretch request that keeps the playout delay on a
/// target following measured jitter (see `JitterBufferDelayEstimator`). The same control loop
/// compensates clock drift between sender and receiver: a faster or slower sender shows up as a
/// playout delay drifting away from the target, which accelerate/expand bring back.
///
/// Payloads are copied into slots allocated once (`JitterBufferConfiguration.capacity`), so the
/// per-packet and per-frame paths allocate nothing.
public struct JitterBuffer: Sendable {
    public let configuration: JitterBufferConfiguration

    var store: JitterBufferStore
    var estimator: JitterBufferDelayEstimator
    var sequences = SequenceUnwrapper()
    var timestamps = TimestampUnwrapper()
    /// Ring of recently received unwrapped sequence numbers, for duplicate detection.
    var recentSequences: [Int64]
    var ssrc: UInt32?
    var highestSequence: Int64?
    /// The unwrapped RTP timestamp of the next frame to play; nil before the first talkspurt.
    var playout: Int64?
    /// True while waiting to (re-)anchor the playout point at a talkspurt start.
    var waiting = true
    /// The talkspurt start anchored last (a marker frame re-anchors once).
    var anchoredTimestamp: Int64?
    var lastPlayedSequence: Int64?
    /// The last known frame duration (samples per channel), used for concealment.
    var frameDuration: Int
    /// Samples concealed since audio last flowed.
    var concealedRun = 0
    var stats = JitterBufferStatistics()
    /// Per-frame jitter-buffer delay, 1 ms buckets, the last one for a second and more.
    var delayHistogram: [Int]
    /// The playout delay at the last decision (µs).
    var lastPlayoutDelay: Int64 = 0
    /// Since when the delay has been above the target's band (µs), nil when it is not.
    var excessSince: Int64?
    /// Frames concealed lately (unwrapped timestamps, a ring), so that a copy arriving too late
    /// for one of them still tells the delay estimator when it would have been recoverable.
    var concealedFrames: [Int64]
    var concealedHead = 0

    /// How often the owner asks for audio (µs): the device's buffer duration, 10 ms by default.
    /// Silence while waiting for a talkspurt is handed out in these steps, and delay adaptation
    /// allows for decisions falling on this grid.
    public var pullInterval: Int64 = 10_000 {
        didSet { pullInterval = max(pullInterval, 1_000) }
    }

    static let recentSequenceCount = 512
    static let concealedFrameCount = 16

    public init(configuration: JitterBufferConfiguration) {
        self.configuration = configuration
        store = JitterBufferStore(capacity: configuration.capacity, maxPayloadBytes: configuration.maxPayloadBytes)
        estimator = JitterBufferDelayEstimator(configuration: configuration)
        recentSequences = [Int64](repeating: .min, count: Self.recentSequenceCount)
        frameDuration = max(configuration.clockRate / 50, 1)
        delayHistogram = [Int](repeating: 0, count: 1_001)
        concealedFrames = [Int64](repeating: .min, count: Self.concealedFrameCount)
    }

    /// Inserts a received packet; its payload is copied. For a RED packet pass the primary block's
    /// payload here, then its redundant blocks to `insertRedundant` (even when this returns `.late`:
    /// a late packet's redundant copies may still be in time).
    public mutating func insert(_ packet: JitterBufferPacket, payload: UnsafeRawBufferPointer) -> JitterBufferInsertResult {
        stats.packetsReceived += 1
        if let ssrc, ssrc != packet.ssrc {
            startNewTimeline()
            stats.ssrcChanges += 1
        }
        ssrc = packet.ssrc
        var sequence = sequences.unwrap(packet.sequenceNumber)
        if recentSequences[Self.ring(sequence)] == sequence {
            stats.duplicatePackets += 1
            return .duplicate
        }
        var timestamp = timestamps.unwrap(packet.timestamp)
        // A newer packet more than a second behind the playout point: the sender restarted its
        // timestamps. Start over rather than call everything from now on late.
        if let playout, let highestSequence, sequence > highestSequence,
           timestamp + Int64(configuration.clockRate) < playout {
            startNewTimeline()
            stats.timelineResets += 1
            sequence = sequences.unwrap(packet.sequenceNumber)
            timestamp = timestamps.unwrap(packet.timestamp)
        }
        recentSequences[Self.ring(sequence)] = sequence
        highestSequence = max(highestSequence ?? sequence, sequence)
        if let d = packet.duration, d > 0 { frameDuration = d }
        let duration = max(packet.duration ?? frameDuration, 1)
        // A retransmission is played if it comes in time; the delay is never raised to wait for one.
        if !packet.isRetransmission {
            estimator.update(arrival: packet.arrivalTime, timestamp: timestamp, duration: duration)
        }

        // The frame before this one was concealed: its FEC (in this packet) came too late. (Not for
        // a retransmission: it came late because it was asked for.)
        if configuration.fecEnabled, !packet.isRetransmission, takeConcealed(timestamp - Int64(duration)) {
            estimator.recordRecovery(arrival: packet.arrivalTime, timestamp: timestamp - Int64(duration))
        }
        if let playout, timestamp < playout {
            stats.latePackets += 1
            stats.discardedPackets += 1
            return .late
        }
        let entry = JitterBufferStore.Entry(timestamp: timestamp, sequence: sequence, duration: duration,
                                            arrival: packet.arrivalTime, payloadType: packet.payloadType,
                                            marker: packet.marker)
        if let i = store.index(of: timestamp) {
            // A redundant copy gives way to the packet itself; two packets for one frame keep the first.
            guard store.entries[i].isRedundant, payload.count <= store.maxPayloadBytes else {
                stats.duplicatePackets += 1
                return .duplicate
            }
            store.replace(i, with: entry, payload: payload)
            return .inserted
        }
        guard store.store(entry, payload: payload) != nil else {
            stats.discardedPackets += 1
            return .discarded
        }
        return .inserted
    }

    /// Inserts a redundant block of a RED packet (RFC 2198) whose primary went to `insert` just
    /// before: its own timestamp, payload type and duration; `arrivalTime` is the packet's.
    /// Blocks for frames already played or held are refused (`.late`, `.duplicate`), uncounted.
    public mutating func insertRedundant(timestamp: UInt32, payloadType: UInt8, duration: Int?, arrivalTime: Int64,
                                         payload: UnsafeRawBufferPointer) -> JitterBufferInsertResult {
        guard ssrc != nil else { return .discarded }
        let timestamp = timestamps.unwrap(timestamp)
        if let playout, timestamp < playout {
            // A copy of a concealed frame, too late: the delay it would have needed counts.
            if takeConcealed(timestamp) { estimator.recordRecovery(arrival: arrivalTime, timestamp: timestamp) }
            return .late
        }
        if store.index(of: timestamp) != nil { return .duplicate }
        let entry = JitterBufferStore.Entry(timestamp: timestamp, sequence: nil,
                                            duration: max(duration ?? frameDuration, 1), arrival: arrivalTime,
                                            payloadType: payloadType)
        return store.store(entry, payload: payload) == nil ? .discarded : .inserted
    }

    /// Runs `body` on the payload of a slot from the last decision (valid until the next insert).
    public func withPayload<R>(_ slot: JitterBufferSlot, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        store.withPayload(slot.index, body)
    }

    /// Tells the buffer how a time-stretch request was carried out: samples per channel inserted
    /// (positive, expand) or removed (negative, accelerate); 0 when the frame was left as it was.
    public mutating func recordTimeStretch(samples: Int) {
        if samples > 0 {
            stats.expandCount += 1
            stats.expandedSamples += samples
        } else if samples < 0 {
            stats.accelerateCount += 1
            stats.acceleratedSamples -= samples
        }
    }

    /// Tells the buffer a `.recoverFromFEC` decision found no FEC (or a decode failed) and
    /// `samples` were concealed instead.
    public mutating func recordConcealmentInstead(of action: JitterBufferDecision.Action, samples: Int) {
        switch action {
        case .recoverFromFEC: stats.fecRecoveredFrames -= 1
        case .decodeRedundant: stats.redRecoveredFrames -= 1
        case .decode: stats.decodedFrames -= 1
        case .conceal, .silence: return
        }
        if concealedRun == 0 { stats.concealmentEvents += 1 }
        concealedRun += samples
        stats.concealedSamples += samples
    }

    /// The target delay in milliseconds.
    public var targetDelayMs: Double { Double(estimator.target) / 1_000 }

    /// The playout delay of the last frame played, in milliseconds (see `JitterBufferStatistics.currentDelayMs`).
    public var currentDelayMs: Double { Double(lastPlayoutDelay) / 1_000 }

    /// Counters and levels now.
    public var statistics: JitterBufferStatistics {
        var s = stats
        s.currentDelayMs = Double(lastPlayoutDelay) / 1_000
        s.targetDelayMs = targetDelayMs
        if let playout, let end = store.newestEnd, end > playout {
            s.bufferedMs = Double(end - playout) * 1_000 / Double(configuration.clockRate)
        }
        s.jitterBufferDelayP50Ms = delayQuantile(0.5)
        s.jitterBufferDelayP95Ms = delayQuantile(0.95)
        return s
    }

    /// Forgets the packets and the timeline (sequence and timestamp bases, playout point, the
    /// fastest-path window); counters and the delay histogram stay.
    mutating func startNewTimeline() {
        stats.discardedPackets += store.removeAll()
        sequences = SequenceUnwrapper()
        timestamps = TimestampUnwrapper()
        for i in recentSequences.indices { recentSequences[i] = .min }
        highestSequence = nil
        playout = nil
        waiting = true
        anchoredTimestamp = nil
        lastPlayedSequence = nil
        concealedRun = 0
        for i in concealedFrames.indices { concealedFrames[i] = .min }
        estimator.resetWindow()
    }

    /// Remembers that the frame at `timestamp` was concealed.
    mutating func noteConcealed(_ timestamp: Int64) {
        concealedFrames[concealedHead] = timestamp
        concealedHead = (concealedHead + 1) % concealedFrames.count
    }

    /// True (once) if the frame at `timestamp` was concealed lately.
    mutating func takeConcealed(_ timestamp: Int64) -> Bool {
        for i in concealedFrames.indices where concealedFrames[i] == timestamp {
            concealedFrames[i] = .min
            return true
        }
        return false
    }

    mutating func recordEmission(delay: Int64) {
        let delay = max(delay, 0)
        stats.totalJitterBufferDelay += Double(delay) / 1_000_000
        stats.emittedFrames += 1
        delayHistogram[min(Int(delay / 1_000), delayHistogram.count - 1)] += 1
    }

    /// The `q` quantile of the per-frame jitter-buffer delay (upper edge of its 1 ms bucket).
    private func delayQuantile(_ q: Double) -> Double {
        guard stats.emittedFrames > 0 else { return 0 }
        let needed = Int((Double(stats.emittedFrames) * q).rounded(.up))
        var sum = 0
        for (i, n) in delayHistogram.enumerated() {
            sum += n
            if sum >= needed { return Double(i + 1) }
        }
        return Double(delayHistogram.count)
    }

    private static func ring(_ sequence: Int64) -> Int { Int(sequence & Int64(recentSequenceCount - 1)) }
}

/// Extends 32-bit RTP timestamps to a monotonic 64-bit timeline (serial arithmetic, RFC 1982):
/// a timestamp slightly behind the newest maps below it, across the 2^32 wrap too.
struct TimestampUnwrapper: Sendable {
    private var last: Int64?

    mutating func unwrap(_ value: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(value)
            return Int64(value)
        }
        let extended = last + SerialNumber.distance(from: UInt32(truncatingIfNeeded: last), to: value)
        if extended > last { self.last = extended }
        return extended
    }
}
