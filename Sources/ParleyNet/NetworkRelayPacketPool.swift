/// Fixed buffers for datagrams held inside a `NetworkRelay`'s conditioners: `count` slots of
/// `slotBytes`, allocated once. A conditioner carries a slot's index; a duplicated packet holds its
/// slot until its last copy leaves. Loop-confined.
final class NetworkRelayPacketPool {
    let count: Int
    let slotBytes: Int
    private let storage: UnsafeMutableRawPointer
    private var lengths: [Int]
    private var references: [Int]
    private var free: [Int]

    init(count: Int, slotBytes: Int) {
        self.count = max(count, 1)
        self.slotBytes = max(slotBytes, 1)
        storage = .allocate(byteCount: self.count * self.slotBytes, alignment: 16)
        lengths = Array(repeating: 0, count: self.count)
        references = Array(repeating: 0, count: self.count)
        free = Array((0..<self.count).reversed())
    }

    deinit { storage.deallocate() }

    /// Copies `bytes` into a free slot; nil when every slot is in use or the datagram is too long.
    func store(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count <= slotBytes, let slot = free.popLast() else { return nil }
        if let base = bytes.baseAddress, !bytes.isEmpty {
            (storage + slot * slotBytes).copyMemory(from: base, byteCount: bytes.count)
        }
        lengths[slot] = bytes.count
        references[slot] = 1
        return slot
    }

    /// Sets how many deliveries will release `slot` (0 frees it now).
    func setReferences(_ slot: Int, _ n: Int) {
        references[slot] = n
        if n <= 0 { free.append(slot) }
    }

    /// One delivery of `slot` is done.
    func release(_ slot: Int) {
        references[slot] -= 1
        if references[slot] <= 0 { free.append(slot) }
    }

    /// The datagram in `slot`.
    func bytes(_ slot: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage + slot * slotBytes, count: lengths[slot])
    }

    /// Slots in use.
    var inUse: Int { count - free.count }
}
