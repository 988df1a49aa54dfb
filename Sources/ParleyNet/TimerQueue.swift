/// Timers of one event loop: a binary min-heap of deadlines with lazy cancellation.
/// Loop-confined: only the loop thread touches it.
struct TimerQueue {
    typealias ID = UInt64
    private var heap: [(deadline: UInt64, id: ID)] = []
    private var actions: [ID: () -> Void] = [:]
    private var nextID: ID = 1

    var isEmpty: Bool { actions.isEmpty }

    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> ID {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append((deadline, id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: ID) { actions[id] = nil }

    /// Milliseconds until the earliest live deadline (rounded up), or -1 if none.
    mutating func timeoutMillis(now: UInt64) -> Int32 {
        dropCancelled()
        guard let first = heap.first else { return -1 }
        if first.deadline <= now { return 0 }
        return Int32(min((first.deadline - now + 999_999) / 1_000_000, 60_000))
    }

    /// Removes and returns the actions whose deadline has passed.
    mutating func expired(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let first = heap.first, first.deadline <= now {
            popFirst()
            if let action = actions.removeValue(forKey: first.id) { due.append(action) }
        }
        return due
    }

    private mutating func dropCancelled() {
        while let first = heap.first, actions[first.id] == nil { popFirst() }
    }

    private mutating func popFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftUp(_ index: Int) {
        var i = index
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].deadline < heap[parent].deadline else { return }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var i = index
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < heap.count && heap[l].deadline < heap[smallest].deadline { smallest = l }
            if r < heap.count && heap[r].deadline < heap[smallest].deadline { smallest = r }
            if smallest == i { return }
            heap.swapAt(i, smallest)
            i = smallest
        }
    }
}
