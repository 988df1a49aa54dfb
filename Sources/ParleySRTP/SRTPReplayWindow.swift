/// The receiver's replay list of RFC 3711 §3.3.2: the highest packet index authenticated so far
/// and a sliding window of the indices just below it that have been seen. The bitmap is a ring
/// indexed by `index mod size`, so advancing clears only the slots it passes (one for in-order
/// traffic) instead of shifting every word. Storage is allocated once, when the stream appears.
struct SRTPReplayWindow {
    /// How a packet index fares against the window.
    enum Verdict: Equatable {
        case fresh
        /// Older than the window: cannot tell whether it was seen.
        case tooOld
        /// Inside the window and already received.
        case repeated
    }

    private var bits: [UInt64]
    private let size: UInt64
    /// The highest index accepted, or nil before the first packet.
    private(set) var highest: UInt64?

    /// A window covering `size` indices (rounded up to a multiple of 64); size 0 stores nothing
    /// and must not be used.
    init(size: Int) {
        let words = (size + 63) / 64
        bits = [UInt64](repeating: 0, count: words)
        self.size = UInt64(words * 64)
    }

    func check(_ index: UInt64) -> Verdict {
        guard let highest, index <= highest else { return .fresh }
        if highest - index >= size { return .tooOld }
        return isSet(index) ? .repeated : .fresh
    }

    /// Records `index` as received. Call only after it authenticated and `check` said `.fresh`.
    mutating func accept(_ index: UInt64) {
        if let highest, index <= highest {
            set(index)
            return
        }
        if let highest, index - highest < size {
            var slot = highest + 1
            while slot < index {  // indices skipped over are not received (yet)
                clear(slot)
                slot += 1
            }
        } else {
            for i in bits.indices { bits[i] = 0 }
        }
        set(index)
        highest = index
    }

    private func isSet(_ index: UInt64) -> Bool {
        let slot = index % size
        return bits[Int(slot / 64)] & (1 << (slot % 64)) != 0
    }

    private mutating func set(_ index: UInt64) {
        let slot = index % size
        bits[Int(slot / 64)] |= 1 << (slot % 64)
    }

    private mutating func clear(_ index: UInt64) {
        let slot = index % size
        bits[Int(slot / 64)] &= ~(1 << (slot % 64))
    }
}
