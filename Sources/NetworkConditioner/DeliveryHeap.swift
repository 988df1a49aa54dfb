/// Scheduled deliveries of a conditioner: a binary min-heap on (delivery time, scheduling order),
/// so that copies due at the same time come out in the order they were scheduled. Its array keeps
/// its capacity, so steady state allocates nothing.
struct DeliveryHeap<Payload> {
    struct Entry {
        var time: Int64
        var order: UInt64
        var submitted: Int64
        var sequence: UInt64
        var payload: Payload
    }

    private var entries: [Entry] = []
    private var nextOrder: UInt64 = 0

    init(capacity: Int) { entries.reserveCapacity(capacity) }

    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func push(time: Int64, submitted: Int64, sequence: UInt64, payload: Payload) {
        entries.append(Entry(time: time, order: nextOrder, submitted: submitted, sequence: sequence, payload: payload))
        nextOrder &+= 1
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard precedes(entries[i], entries[parent]) else { break }
            entries.swapAt(i, parent)
            i = parent
        }
    }

    mutating func popFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < entries.count, precedes(entries[l], entries[best]) { best = l }
            if r < entries.count, precedes(entries[r], entries[best]) { best = r }
            if best == i { break }
            entries.swapAt(i, best)
            i = best
        }
        return first
    }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    /// Hands every payload to `body`, in no particular order, then empties the heap.
    mutating func removeAll(_ body: (Payload) -> Void) {
        for entry in entries { body(entry.payload) }
        entries.removeAll(keepingCapacity: true)
    }

    private func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.time != b.time ? a.time < b.time : a.order < b.order
    }
}

extension DeliveryHeap: Sendable where Payload: Sendable {}
extension DeliveryHeap.Entry: Sendable where Payload: Sendable {}
