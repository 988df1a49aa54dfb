/// Pre-filtering of draft-ietf-rmcat-gcc-02 §5.2: packets sent within `burstTime` of a group's
/// first are one group (a frame, or a burst the pacer let out at once), and a packet that arrives
/// within `burstTime` of the group's last with a negative delay variation joins it too (it queued
/// behind the group). Each completed group gives the next one's deltas against the one before
/// (§5.1): send time, arrival time (both of their last packets) and size.
///
/// Send times are abs-send-time values (6.18 fixed-point seconds, 24 bits, wrapping every 64 s),
/// unwrapped against the newest seen. A packet older than the current group's first is reordered
/// (or a retransmission, which keeps its first send time) and ignored; a jump of more than `maxGap`
/// either way, or arrivals going back, start grouping over, so a garbage timestamp costs a group or
/// two, never the estimate.
public struct PacketGroups: Sendable, Hashable {
    /// One group's deltas from the group before it, in milliseconds and bytes.
    public struct Delta: Sendable, Hashable {
        public var send: Double
        public var arrival: Double
        public var size: Int

        public init(send: Double, arrival: Double, size: Int) {
            self.send = send
            self.arrival = arrival
            self.size = size
        }
    }

    struct Group: Sendable, Hashable {
        var firstSend: Double
        var lastSend: Double
        var firstArrival: Double
        var lastArrival: Double
        var size: Int
    }

    /// §5.2 burst_time.
    public static let burstTime = 5.0
    /// libwebrtc's bound on a burst's length: arrivals spread wider than this are not one burst.
    static let maxBurstDuration = 100.0
    /// Gaps (send or arrival) longer than this, or a delay variation this large, restart grouping.
    static let maxGap = 3_000.0

    var newestRaw: UInt32?
    /// The newest send time, unwrapped, in 2^-18 s.
    var newestTicks: Int64 = 0
    var current: Group?
    var previous: Group?

    public init() {}

    /// A packet sent at abs-send-time `absSendTime` (its 24 bits), arriving at `arrival` ms, of
    /// `size` bytes; the deltas of the group it completed, if it began a new one.
    public mutating func add(absSendTime: UInt32, arrival: Double, size: Int) -> Delta? {
        guard arrival.isFinite else { return nil }
        let send = unwrap(absSendTime & 0xFF_FFFF)
        guard var group = current else {
            current = Group(firstSend: send, lastSend: send, firstArrival: arrival, lastArrival: arrival, size: size)
            return nil
        }
        if arrival < group.lastArrival || abs(send - group.lastSend) > Self.maxGap || arrival - group.lastArrival > Self.maxGap {
            restart(send: send, arrival: arrival, size: size)  // a clock step, a long pause, a garbage timestamp
            return nil
        }
        if send < group.firstSend { return nil }
        if belongsToBurst(group, send: send, arrival: arrival) || send - group.firstSend <= Self.burstTime {
            group.lastSend = max(group.lastSend, send)
            group.lastArrival = arrival
            group.size += size
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            let d = Delta(send: group.lastSend - previous.lastSend, arrival: group.lastArrival - previous.lastArrival,
                          size: group.size - previous.size)
            if abs(d.arrival - d.send) <= Self.maxGap { delta = d }
        }
        previous = group
        current = Group(firstSend: send, lastSend: send, firstArrival: arrival, lastArrival: arrival, size: size)
        return delta
    }

    /// §5.2: sent at the same time as the group's last packet, or arrived within `burstTime` of it
    /// having spent less time in transit (it waited behind the group).
    func belongsToBurst(_ group: Group, send: Double, arrival: Double) -> Bool {
        let sendDelta = send - group.lastSend
        if sendDelta == 0 { return true }
        let arrivalDelta = arrival - group.lastArrival
        return arrivalDelta - sendDelta < 0 && arrivalDelta <= Self.burstTime
            && arrival - group.firstArrival < Self.maxBurstDuration
    }

    /// The send time in ms on the unwrapped axis: within half the 64 s range of the newest seen.
    mutating func unwrap(_ raw: UInt32) -> Double {
        if let newest = newestRaw {
            // The 24-bit difference, sign-extended: how far before or after the newest.
            let difference = Int64(Int32(bitPattern: (raw &- newest) << 8) >> 8)
            let ticks = newestTicks + difference
            if difference > 0 {
                newestRaw = raw
                newestTicks = ticks
            }
            return Double(ticks) * Self.millisecondsPerTick
        }
        newestRaw = raw
        newestTicks = Int64(raw)
        return Double(newestTicks) * Self.millisecondsPerTick
    }

    private mutating func restart(send: Double, arrival: Double, size: Int) {
        previous = nil
        current = Group(firstSend: send, lastSend: send, firstArrival: arrival, lastArrival: arrival, size: size)
    }

    /// abs-send-time counts 2^-18 s.
    static let millisecondsPerTick = 1000.0 / 262_144
}
