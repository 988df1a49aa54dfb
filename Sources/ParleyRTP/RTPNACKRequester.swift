/// Which packets of a received stream to ask again for (Generic NACK, RFC 4585 §6.2.1), and
/// when. A value driven by arrivals and a clock (seconds), so tests run it without a network.
///
/// A gap in the sequence numbers makes its packets missing. A missing packet is asked for only
/// while a retransmission can still be played: one round trip (plus `margin`) must fit in what is
/// left of the playout budget (the jitter buffer's delay) counted from when it should have come.
/// It is asked again after 1.5 round trips, at most `maxRequests` times, and forgotten when it
/// arrives, when it can no longer be played, or when more than `capacity` are missing (a long
/// outage is not worth a storm of NACKs).
public struct RTPNACKRequester: Sendable {
    private struct Missing: Sendable {
        var sequenceNumber: UInt16
        /// When it was found missing (about when it should have arrived).
        var since: Double
        var requests: Int
        var lastRequest: Double
    }

    public let capacity: Int
    public var maxRequests = 2
    /// Slack on top of the round trip for a retransmission to be worth it.
    public var margin = 0.01
    private var missing: [Missing]
    private var highest: UInt16?
    /// Packets asked for, and those that came after being asked for.
    public private(set) var requested = 0
    public private(set) var recovered = 0

    public init(capacity: Int = 64) {
        self.capacity = max(capacity, 1)
        missing = []
        missing.reserveCapacity(self.capacity)
    }

    /// Notes an arriving packet (or one recovered otherwise, e.g. from RED) at `now`.
    public mutating func received(_ sequenceNumber: UInt16, now: Double) {
        guard let highest else {
            self.highest = sequenceNumber
            return
        }
        let ahead = Int(Int16(bitPattern: sequenceNumber &- highest))
        if ahead <= 0 {
            if let index = missing.firstIndex(where: { $0.sequenceNumber == sequenceNumber }) {
                if missing[index].requests > 0 { recovered += 1 }
                missing.remove(at: index)
            }
            return
        }
        self.highest = sequenceNumber
        guard ahead > 1 else { return }
        if ahead - 1 > capacity - missing.count {
            // Too many at once: an outage, not loss worth retransmitting.
            missing.removeAll(keepingCapacity: true)
            return
        }
        for step in 1..<ahead {
            missing.append(Missing(sequenceNumber: sequenceNumber &- UInt16(ahead - step), since: now, requests: 0,
                                   lastRequest: -.infinity))
        }
    }

    /// The sequence numbers to ask for now, in order, in `into` (cleared first), given the round
    /// trip time and the playout budget (seconds). Forgets what can no longer be played.
    public mutating func due(now: Double, roundTripTime rtt: Double, playoutBudget: Double, into due: inout [UInt16]) {
        due.removeAll(keepingCapacity: true)
        missing.removeAll { now - $0.since + rtt + margin > playoutBudget || $0.requests >= maxRequests && now - $0.lastRequest > 1.5 * rtt }
        for index in missing.indices where missing[index].requests < maxRequests && now - missing[index].lastRequest >= 1.5 * rtt {
            missing[index].requests += 1
            missing[index].lastRequest = now
            due.append(missing[index].sequenceNumber)
            requested += 1
        }
    }

    /// Packets missing now.
    public var missingCount: Int { missing.count }
}
