import AudioCore
import Testing

@Suite struct DTMFDialQueueTests {
    /// Reads everything still queued.
    static func drain(_ queue: inout DTMFDialQueue) -> [DTMFDialElement] {
        var read: [DTMFDialElement] = []
        while let element = queue.next() { read.append(element) }
        return read
    }

    @Test func readsElementsInOrderAcrossEnqueues() throws {
        var queue = DTMFDialQueue()
        #expect(!queue.hasPending)
        #expect(queue.next() == nil)
        try queue.enqueue("1w")
        #expect(queue.hasPending)
        #expect(queue.next() == .digit(.one))
        // A string queued while another is being read goes after it.
        queue.enqueue(DTMFDialString(elements: [.digit(.pound), .digit(.a)]))
        #expect(Self.drain(&queue) == [.pause, .digit(.pound), .digit(.a)])
        #expect(!queue.hasPending)
        #expect(queue.next() == nil)
    }

    @Test func startsOverOnceEverythingHasBeenRead() throws {
        var queue = DTMFDialQueue(capacity: 4)
        try queue.enqueue("12")
        #expect(Self.drain(&queue) == [.digit(.one), .digit(.two)])
        try queue.enqueue("*")
        #expect(Self.drain(&queue) == [.digit(.star)])
    }

    @Test func invalidStringQueuesNothing() throws {
        var queue = DTMFDialQueue()
        try queue.enqueue("9")
        #expect(throws: DTMFDialStringError(character: "-", position: 1)) { try queue.enqueue("5-5") }
        #expect(Self.drain(&queue) == [.digit(.nine)])
    }

    @Test func removeAllDropsWhatIsPending() throws {
        var queue = DTMFDialQueue()
        try queue.enqueue("123")
        _ = queue.next()
        queue.removeAll()
        #expect(!queue.hasPending)
        #expect(queue.next() == nil)
        try queue.enqueue("0")
        #expect(Self.drain(&queue) == [.digit(.zero)])
    }
}
