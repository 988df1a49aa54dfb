/// The keys and pauses still to be dialled, oldest first: what `DTMFToneGenerator` (in-band) and
/// `DTMFSender` (RFC 4733 events) play from.
///
/// Elements are read in place and the storage is reused once everything has been read, so
/// dialling allocates only when a string outgrows the reserved capacity.
public struct DTMFDialQueue: Sendable {
    private var elements: [DTMFDialElement] = []
    private var nextIndex = 0

    /// An empty queue with room for `capacity` elements.
    public init(capacity: Int = 32) {
        elements.reserveCapacity(capacity)
    }

    /// Appends the keys and pauses of `dialString` after whatever is still queued.
    public mutating func enqueue(_ dialString: DTMFDialString) {
        if !hasPending { removeAll() }
        elements.append(contentsOf: dialString.elements)
    }

    /// Validates and appends a dial string (`0`–`9`, `*`, `#`, `w`); on an invalid character it
    /// throws, naming it and its position, and queues nothing.
    public mutating func enqueue(_ string: String) throws(DTMFDialStringError) {
        enqueue(try DTMFDialString(string))
    }

    /// True while an element remains to be read.
    public var hasPending: Bool { nextIndex < elements.count }

    /// The oldest element not yet read, removing it from the queue; nil when none is left.
    public mutating func next() -> DTMFDialElement? {
        guard hasPending else { return nil }
        defer { nextIndex += 1 }
        return elements[nextIndex]
    }

    /// Drops everything queued, keeping the storage.
    public mutating func removeAll() {
        elements.removeAll(keepingCapacity: true)
        nextIndex = 0
    }
}
