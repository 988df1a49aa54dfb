/// A receiver's reorder buffer for one RTP stream's packets (RFC 3550 §5.1 sequence numbers,
/// 16 bits, wrapping): packets go in as they arrive — late, out of order, or as retransmissions of
/// lost ones (RFC 4588) — and come out in sequence order, each once. When a packet is missing,
/// what follows it waits up to `maxWait` (seconds after the first packet past the gap arrived) for
/// a retransmission; then the gap is given up (`.gap`) and the rest flows on. A packet older than
/// the next one expected is late and dropped. At most `capacity` packets are held: one further
/// ahead gives up the oldest gaps at once. A pure value on time passed in.
public struct SequenceReorderBuffer<Element: Sendable>: Sendable {
    /// What comes out next.
    public enum Output: Sendable {
        /// The next packet in sequence order.
        case element(Element)
        /// `count` packets never came (a retransmission neither); their frames are lost.
        case gap(count: Int)
    }

    /// Packets held at most (a power of two).
    public let capacity: Int
    public let maxWait: Double
    /// Packets dropped as late (older than the next expected, or already out) or repeated.
    public private(set) var late = 0
    /// Packets given up as missing (or dropped by a jump of the sequence numbers).
    public private(set) var missing = 0
    /// Packets held now.
    public private(set) var count = 0

    private var slots: [(sequence: UInt16, element: Element, arrival: Double)?]
    /// The next sequence number to come out; nil before the first packet.
    private var expected: UInt16?
    /// A gap to report before anything else (the sequence numbers jumped).
    private var pendingGap = 0

    /// - Parameters: `capacity`, rounded up to a power of two from 2 to 32768 packets; `maxWait` in seconds.
    public init(capacity: Int = 512, maxWait: Double) {
        var size = 2
        while size < min(capacity, 32_768) { size *= 2 }
        self.capacity = size
        self.maxWait = maxWait
        slots = Array(repeating: nil, count: size)
    }

    /// Takes a packet that arrived `now`; false when it is late or repeated (dropped). A packet
    /// further than `capacity` from the next expected, ahead or behind, starts the stream over
    /// (a sender's restart): what was held is given up.
    @discardableResult
    public mutating func insert(_ element: Element, sequence: UInt16, now: Double) -> Bool {
        if let next = expected {
            let distance = Int(Int16(bitPattern: sequence &- next))
            if distance >= capacity || distance < -capacity {
                missing += count
                pendingGap += max(count, 1)
                for index in slots.indices { slots[index] = nil }
                count = 0
                expected = sequence
            } else if distance < 0 {
                late += 1
                return false
            }
        } else {
            expected = sequence
        }
        let slot = index(sequence)
        guard slots[slot] == nil else {
            late += 1  // within the window only the same sequence number maps here
            return false
        }
        slots[slot] = (sequence, element, now)
        count += 1
        return true
    }

    /// The next packet in order, or a gap given up; nil while the next one may still come.
    public mutating func next(now: Double) -> Output? {
        if pendingGap > 0 {
            defer { pendingGap = 0 }
            return .gap(count: pendingGap)
        }
        guard var head = expected, count > 0 else { return nil }
        if let held = slots[index(head)] {
            slots[index(head)] = nil
            count -= 1
            expected = head &+ 1
            return .element(held.element)
        }
        // The head is missing: how far to the first packet held, and how long that one waited.
        var gap = 0
        while slots[index(head)] == nil {
            head = head &+ 1
            gap += 1
        }
        guard now - slots[index(head)]!.arrival >= maxWait else { return nil }
        expected = head
        missing += gap
        return .gap(count: gap)
    }

    private func index(_ sequence: UInt16) -> Int { Int(sequence) & (capacity - 1) }
}
