import RTCP

/// What a receiver tells a sender's congestion controller (transport-wide congestion control,
/// draft-holmer-rmcat-transport-wide-cc-extensions-01): the arrival time of every packet by its
/// transport-wide sequence number (§2), reported as RTCP transport feedback (§3.1) at intervals.
/// Browsers' send-side bandwidth estimation (GoogCC) ramps up only on such feedback.
///
/// A value type with no clock (arrivals come in as microseconds on the receiver's clock); recording
/// writes into a fixed ring and allocates nothing. At most `capacity` packets wait for one
/// feedback; older ones are dropped, as a report that late is of no use.
public struct TransportFeedbackRecorder: Sendable {
    public let capacity: Int
    /// Arrival (µs) by extended sequence number modulo `capacity`; -1 when not received.
    private var arrivals: [Int64]
    /// The first extended sequence number not reported yet, and the highest seen.
    private var base: Int64?
    private var highest: Int64 = -1
    private var feedbackCount: UInt8 = 0
    /// Packets recorded, and those too late for any feedback (already reported or dropped).
    public private(set) var recorded = 0
    public private(set) var late = 0

    public init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        arrivals = [Int64](repeating: -1, count: self.capacity)
    }

    /// Notes that packet `sequence` arrived at `microseconds`.
    public mutating func record(_ sequence: UInt16, arrivalMicroseconds microseconds: Int64) {
        let extended: Int64
        if let base {
            // Unwrap against the highest seen (RFC 3550 A.1 style): within ±32768.
            let reference = highest >= 0 ? highest : base
            extended = reference + Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: reference)))
            guard extended >= base else {
                late += 1
                return
            }
        } else {
            extended = Int64(sequence)
            base = extended
        }
        if extended > highest {
            // Clear the slots skipped over (not received), then drop what no longer fits.
            var next = max(highest + 1, base ?? extended)
            if extended - next >= Int64(capacity) { next = extended - Int64(capacity) + 1 }
            while next < extended {
                arrivals[slot(next)] = -1
                next += 1
            }
            highest = extended
            if let first = base, highest - first >= Int64(capacity) {
                late += Int(highest - first - Int64(capacity) + 1)
                base = highest - Int64(capacity) + 1
            }
        }
        arrivals[slot(extended)] = max(0, microseconds)
        recorded += 1
    }

    /// Feedback for everything recorded since the last one (nil when nothing is new), from
    /// `senderSSRC` about the media of `mediaSSRC`.
    public mutating func feedback(senderSSRC: UInt32, mediaSSRC: UInt32) -> TransportLayerCC? {
        guard let first = base, highest >= first else { return nil }
        var times: [Int64?] = []
        times.reserveCapacity(Int(highest - first + 1))
        var sequence = first
        while sequence <= highest {
            let arrival = arrivals[slot(sequence)]
            times.append(arrival >= 0 ? arrival : nil)
            arrivals[slot(sequence)] = -1
            sequence += 1
        }
        base = highest + 1
        // A lost first packet has no time to anchor on: start at the first one received.
        guard let anchor = times.firstIndex(where: { $0 != nil }) else { return nil }
        let built = try? TransportLayerCC(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, feedbackPacketCount: feedbackCount,
                                          baseSequenceNumber: UInt16(truncatingIfNeeded: first + Int64(anchor)),
                                          arrivals: Array(times[anchor...]))
        if built != nil { feedbackCount &+= 1 }
        return built
    }

    private func slot(_ extended: Int64) -> Int { Int(extended % Int64(capacity)) }
}
