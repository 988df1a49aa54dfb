/// A first-in, first-out queue with O(1) append and removal at the front, holding at most
/// `capacity` elements: `append` refuses (returns false) when full, so the caller decides what
/// overflow means (pause the producer, close the connection). The storage grows to what is used
/// and is released when the queue empties, so an idle owner keeps no buffer.
public struct RingBuffer<Element> {
    public let capacity: Int
    private var slots: [Element?] = []
    private var head = 0
    public private(set) var count = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a ring buffer holds at least one element")
        self.capacity = capacity
    }

    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == capacity }

    /// Adds `element` at the back; false, and nothing added, when the queue is full.
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        guard count < capacity else { return false }
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
        return true
    }

    /// Removes and returns the front element, or nil when empty.
    public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        if count == 0 { removeAll() }
        return element
    }

    /// The front element, without removing it.
    public var first: Element? { count > 0 ? slots[head] : nil }

    /// Empties the queue and releases its storage.
    public mutating func removeAll() {
        slots = []
        head = 0
        count = 0
    }

    private mutating func grow() {
        let size = min(capacity, max(4, slots.count * 2))
        var grown = [Element?](repeating: nil, count: size)
        for i in 0..<count { grown[i] = slots[(head + i) % slots.count] }
        slots = grown
        head = 0
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
