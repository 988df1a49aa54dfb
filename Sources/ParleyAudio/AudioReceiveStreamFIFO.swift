/// The decoded PCM waiting to be pulled by the device: a ring of interleaved samples allocated
/// once. Appending more than fits drops the oldest samples (it never grows).
struct AudioReceiveStreamFIFO {
    private var storage: [Int16]
    private var head = 0
    /// Samples held (interleaved, all channels).
    private(set) var count = 0

    init(capacity: Int) {
        storage = [Int16](repeating: 0, count: max(capacity, 1))
    }

    var capacity: Int { storage.count }

    mutating func append(_ samples: UnsafeBufferPointer<Int16>) {
        var source = samples
        if source.count > capacity { source = UnsafeBufferPointer(rebasing: source[(source.count - capacity)...]) }
        let overflow = count + source.count - capacity
        if overflow > 0 {
            head = (head + overflow) % capacity
            count -= overflow
        }
        let capacity = capacity
        let head = head, count = count
        storage.withUnsafeMutableBufferPointer { ring in
            var write = (head + count) % capacity
            var offset = 0
            while offset < source.count {
                let run = min(source.count - offset, capacity - write)
                _ = UnsafeMutableBufferPointer(rebasing: ring[write..<write + run])
                    .update(from: UnsafeBufferPointer(rebasing: source[offset..<offset + run]))
                offset += run
                write = (write + run) % capacity
            }
        }
        self.count += source.count
    }

    /// Appends `n` zero samples.
    mutating func appendSilence(_ n: Int) {
        let n = min(max(n, 0), capacity)
        let overflow = count + n - capacity
        if overflow > 0 {
            head = (head + overflow) % capacity
            count -= overflow
        }
        let capacity = capacity
        let start = (head + count) % capacity
        storage.withUnsafeMutableBufferPointer { ring in
            for i in 0..<n { ring[(start + i) % capacity] = 0 }
        }
        count += n
    }

    /// Moves up to `output.count` samples into `output`; returns how many.
    mutating func read(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let n = min(output.count, count)
        let capacity = capacity
        let head = head
        storage.withUnsafeBufferPointer { ring in
            var offset = 0
            var read = head
            while offset < n {
                let run = min(n - offset, capacity - read)
                _ = UnsafeMutableBufferPointer(rebasing: output[offset..<offset + run])
                    .update(from: UnsafeBufferPointer(rebasing: ring[read..<read + run]))
                offset += run
                read = (read + run) % capacity
            }
        }
        self.head = (head + n) % capacity
        count -= n
        return n
    }
}
