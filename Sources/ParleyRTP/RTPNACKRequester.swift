/// Which packets of a received stream to ask again for (Generic NACK, RFC 4585 §6.2.1), and
/// when. A value driven by arrivals and a clock (seconds), so tests run it without a network.
///
/// A gap in the sequence numbers makes its packets missing, dated from when they were due. A
/// missing packet is asked for once it is `reorderAllowance` overdue (a packet merely overtaken
/// is not), and only while a retransmission can still be played: one round trip (plus `margin`)
/// must fit in what is left of the playout budget (the jitter buffer's delay). It is asked again
/// after 1.5 round trips, at most `maxRequests` times. A missing packet that another mechanism
/// supplied (RED, `recoveredOtherwise`) or that can no longer be played is asked for no more, but
/// remembered for `memory` seconds: if it still comes, it is late by design (a retransmission an
/// upstream hop asked for), which `received` reports so the jitter buffer does not wait for such
/// packets. More than `capacity` missing at once is an outage, not loss: nothing is asked.
public struct RTPNACKRequester: Sendable {
    private struct Missing: Sendable {
        var sequenceNumber: UInt16
        /// When it was due.
        var since: Double
        var requests: Int
        var lastRequest: Double
        /// No more requests: supplied otherwise, or too late to play.
        var settled: Bool
    }

    public let capacity: Int
    public var maxRequests = 2
    /// Slack on top of the round trip for a retransmission to be worth it.
    public var margin = 0.01
    /// How overdue a packet must be before it is asked for.
    public var reorderAllowance = 0.03
    /// The packets' spacing, to date when a missing one was due.
    public var packetInterval = 0.02
    /// How long a settled packet is remembered.
    public var memory = 1.0
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

    /// Notes an arriving packet at `now`; true when it was missing and asked for or settled: a
    /// retransmission, or a packet that comes too late to matter.
    @discardableResult
    public mutating func received(_ sequenceNumber: UInt16, now: Double) -> Bool {
        guard let highest else {
            self.highest = sequenceNumber
            return false
        }
        let ahead = Int(Int16(bitPattern: sequenceNumber &- highest))
        if ahead <= 0 {
            guard let index = missing.firstIndex(where: { $0.sequenceNumber == sequenceNumber }) else { return false }
            let late = missing[index].requests > 0 || missing[index].settled
            if missing[index].requests > 0 { recovered += 1 }
            missing.remove(at: index)
            return late
        }
        self.highest = sequenceNumber
        guard ahead > 1 else { return false }
        missing.removeAll { now - $0.since > memory }
        if ahead - 1 > capacity - missing.count {
            // Too many at once: an outage, not loss worth retransmitting.
            missing.removeAll(keepingCapacity: true)
            return false
        }
        for step in 1..<ahead {
            // Due one interval after the packet before it, not when the gap showed.
            missing.append(Missing(sequenceNumber: sequenceNumber &- UInt16(ahead - step),
                                   since: now - Double(ahead - step) * packetInterval, requests: 0,
                                   lastRequest: -.infinity, settled: false))
        }
        return false
    }

    /// Notes an arriving packet and the packets its RED blocks supplied (RFC 2198), which are
    /// asked for no more; true as `received(_:now:)`.
    @discardableResult
    public mutating func received(_ sequenceNumber: UInt16, now: Double, suppliedByRED: [REDLossRecovery.Recovered]) -> Bool {
        let late = received(sequenceNumber, now: now)
        for block in suppliedByRED { recoveredOtherwise(block.sequenceNumber) }
        return late
    }

    /// A missing packet another mechanism supplied (a RED block, RFC 2198): asked for no more.
    public mutating func recoveredOtherwise(_ sequenceNumber: UInt16) {
        guard let index = missing.firstIndex(where: { $0.sequenceNumber == sequenceNumber }) else { return }
        missing[index].settled = true
    }

    /// The sequence numbers to ask for now, in order, in `into` (cleared first), given the round
    /// trip time and the playout budget (seconds). Settles what can no longer be played.
    public mutating func due(now: Double, roundTripTime rtt: Double, playoutBudget: Double, into due: inout [UInt16]) {
        due.removeAll(keepingCapacity: true)
        for index in missing.indices where !missing[index].settled {
            let entry = missing[index]
            if now - entry.since + rtt + margin > playoutBudget || entry.requests >= maxRequests {
                missing[index].settled = true
                continue
            }
            guard now - entry.since >= reorderAllowance, now - entry.lastRequest >= 1.5 * rtt else { continue }
            missing[index].requests += 1
            missing[index].lastRequest = now
            due.append(entry.sequenceNumber)
            requested += 1
        }
    }

    /// Packets missing now and still asked for.
    public var missingCount: Int { missing.reduce(0) { $0 + ($1.settled ? 0 : 1) } }
}
