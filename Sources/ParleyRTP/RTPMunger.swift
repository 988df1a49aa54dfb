/// The RTP numbering of one outgoing stream when its media comes from elsewhere: another
/// stream's packets (forwarding, echo) or frames the server plays. A selective forwarding unit's
/// "RTP munger" (RFC 7667 §3.7): the receiver sees one stream, with our SSRC, whose sequence
/// numbers continue without a jump and whose timestamps keep pace with the wall clock whatever the
/// origin of the packets and however often it changes.
///
/// While one source feeds the stream, its packets are mapped by two constant offsets, so its gaps
/// (loss), reordering and pacing carry over. When the origin changes — another source, a new SSRC
/// from the same source, played frames after forwarded ones or the reverse, or played frames
/// after a pause — the stream resynchronises: the next packet gets the last sequence number + 1
/// and the last timestamp advanced by the wall time since (at least one frame), and is marked
/// `resynchronised` (an audio track then sets the marker bit, RFC 3551 §4.1: first packet of a
/// talkspurt; `RTPForwardingTrack` decides).
///
/// A value type with no I/O; time (`now`, seconds) is passed in.
public struct RTPMunger: Sendable {
    /// Played frames after a pause longer than this (beyond the previous frame's duration) start a
    /// new talkspurt: the timestamp jumps by the wall time.
    public static let playPauseTolerance = 0.1

    public let clockRate: UInt32
    /// The highest sequence number sent, and the timestamp of that packet.
    public private(set) var lastSequence: UInt16
    public private(set) var lastTimestamp: UInt32
    /// When the highest packet was sent; nil before the first.
    public private(set) var lastSentAt: Double?
    /// The timestamp step between consecutive packets lately (one frame), the least a switch advances.
    public private(set) var frameStep: UInt32
    private var mapping: Mapping?
    /// Set while played frames feed the stream: the timestamp of the next one.
    private var nextPlayedTimestamp: UInt32?

    private struct Mapping: Sendable {
        var ssrc: UInt32
        var sequenceOffset: UInt16
        var timestampOffset: UInt32
    }

    /// Where a packet goes in the outgoing stream.
    public struct Position: Sendable, Hashable {
        public var sequenceNumber: UInt16
        public var timestamp: UInt32
        /// The stream resynchronised on this packet: an audio stream sets the marker bit.
        public var resynchronised: Bool

        public init(sequenceNumber: UInt16, timestamp: UInt32, resynchronised: Bool) {
            self.sequenceNumber = sequenceNumber
            self.timestamp = timestamp
            self.resynchronised = resynchronised
        }
    }

    /// - Parameters: initial values are random in real use (RFC 3550 §5.1).
    public init(clockRate: UInt32, initialSequence: UInt16, initialTimestamp: UInt32) {
        self.clockRate = clockRate
        lastSequence = initialSequence &- 1
        lastTimestamp = initialTimestamp
        frameStep = clockRate / 50
    }

    /// The forwarding source changed (or stopped): the next forwarded packet resynchronises.
    public mutating func sourceChanged() {
        mapping = nil
    }

    /// The position of a forwarded packet with the source's `ssrc`, `sequence` and `timestamp`.
    public mutating func forwarded(ssrc: UInt32, sequence: UInt16, timestamp: UInt32, now: Double) -> Position {
        if let mapping, mapping.ssrc == ssrc, nextPlayedTimestamp == nil {
            let position = Position(sequenceNumber: sequence &+ mapping.sequenceOffset,
                                    timestamp: timestamp &+ mapping.timestampOffset, resynchronised: false)
            record(position, now: now)
            return position
        }
        let base = resynchronise(now: now)
        mapping = Mapping(ssrc: ssrc, sequenceOffset: base.sequenceNumber &- sequence,
                          timestampOffset: base.timestamp &- timestamp)
        nextPlayedTimestamp = nil
        record(base, now: now)
        return base
    }

    /// The position of a played frame covering `samples`.
    public mutating func played(samples: UInt32, now: Double) -> Position {
        let position: Position
        if let next = nextPlayedTimestamp, let last = lastSentAt,
           now - last <= Double(frameStep) / Double(clockRate) + Self.playPauseTolerance {
            position = Position(sequenceNumber: lastSequence &+ 1, timestamp: next, resynchronised: false)
        } else {
            position = resynchronise(now: now)
        }
        mapping = nil
        record(position, now: now)
        nextPlayedTimestamp = position.timestamp &+ samples
        if samples > 0 { frameStep = samples }
        return position
    }

    /// The next sequence number, and the last timestamp advanced by the wall time since the last
    /// packet (at least one frame, so frames never overlap in the receiver's jitter buffer).
    private func resynchronise(now: Double) -> Position {
        guard let lastSentAt else {
            return Position(sequenceNumber: lastSequence &+ 1, timestamp: lastTimestamp, resynchronised: true)
        }
        let elapsed = min(max(0, now - lastSentAt) * Double(clockRate), Double(UInt32.max / 2))
        let advance = max(UInt32(elapsed.rounded()), frameStep)
        return Position(sequenceNumber: lastSequence &+ 1, timestamp: lastTimestamp &+ advance, resynchronised: true)
    }

    /// Keeps the highest sequence number (serial order, RFC 1982) and learns the frame step from
    /// consecutive packets (up to 120 ms, the longest Opus frame; longer steps are DTX or a
    /// telephone event); reordered older packets change nothing.
    private mutating func record(_ position: Position, now: Double) {
        let ahead = Int16(bitPattern: position.sequenceNumber &- lastSequence)
        guard ahead > 0 || lastSentAt == nil else { return }
        let step = position.timestamp &- lastTimestamp
        if ahead == 1, lastSentAt != nil, !position.resynchronised, step > 0, step <= clockRate * 3 / 25 {
            frameStep = step
        }
        lastSequence = position.sequenceNumber
        lastTimestamp = position.timestamp
        lastSentAt = now
    }
}
