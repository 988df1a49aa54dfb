/// Received bytes not yet consumed. The storage is reused: consumed bytes are dropped by compaction,
/// not reallocation, so a long-lived connection stops allocating once its buffer has grown.
struct HTTPInputBuffer: Sendable {
    private(set) var storage: [UInt8] = []
    private(set) var start = 0

    var count: Int { storage.count - start }
    var isEmpty: Bool { start == storage.count }
    var readable: ArraySlice<UInt8> { storage[start...] }

    mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        storage.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        storage.append(contentsOf: bytes)
    }

    /// Drops `n` bytes from the front.
    mutating func consume(_ n: Int) {
        precondition(n <= count)
        start += n
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        }
    }

    /// Removes and returns the first `n` bytes.
    mutating func take(_ n: Int) -> ArraySlice<UInt8> {
        let slice = storage[start..<(start + n)]
        consume(n)
        return slice
    }

    /// Removes and returns everything, and releases the storage (the connection is handed on,
    /// e.g. to a WebSocket after an upgrade).
    mutating func takeAll() -> [UInt8] {
        let all = Array(readable)
        storage = []
        start = 0
        return all
    }

    /// Offset (from `start`) of the first `byte` at or after `from`, not looking past `limit` bytes.
    func firstIndex(of byte: UInt8, from: Int = 0, limit: Int = .max) -> Int? {
        let end = start + min(count, limit)
        var i = start + from
        while i < end {
            if storage[i] == byte { return i - start }
            i += 1
        }
        return nil
    }

    subscript(offset: Int) -> UInt8 { storage[start + offset] }

    private mutating func compact() {
        if start > 0 && start >= storage.count / 2 {
            storage.removeSubrange(0..<start)
            start = 0
        }
    }
}
