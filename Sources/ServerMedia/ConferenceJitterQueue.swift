/// The packets of one conference participant between the transport's tap and the mixer: a ring of
/// preallocated slots indexed by RTP sequence number (RFC 3550 §A.1 wrap arithmetic), so storing
/// and taking a packet copies its payload once and allocates nothing.
///
/// The mixer takes one packet per 20 ms tick. Playout starts once `targetDepth` frames are
/// buffered (absorbing the jitter between the sender's clock and the media clock); a missing
/// packet with later ones waiting is reported lost (the mixer conceals it); an empty queue stops
/// playout until the depth is rebuilt; more than `maximumDepth` buffered (the sender's clock runs
/// faster, or a burst) drops the oldest down to `targetDepth`.
struct ConferenceJitterQueue {
    /// What `take` found for this tick.
    enum Take: Equatable {
        /// A packet of `count` bytes was copied into the buffer.
        case packet(count: Int)
        /// The next packet is missing while later ones are here.
        case lost
        /// Nothing to play: not yet buffered enough, or ran dry.
        case empty
    }

    static let maximumPayload = 1_500

    /// Slots (320 ms); a power of two, so `sequence % capacity` stays consistent across the wrap.
    let capacity = 16
    let targetDepth: Int
    let maximumDepth: Int
    private var payloads: [UInt8]
    private var lengths: [Int]
    private var sequences: [UInt16]
    private var occupied: [Bool]
    private var started = false
    private var playing = false
    /// The sequence number the next `take` plays.
    private var expected: UInt16 = 0
    /// The highest sequence number stored.
    private var newest: UInt16 = 0
    private(set) var received = 0
    private(set) var dropped = 0

    init(targetDepth: Int = 2, maximumDepth: Int = 6) {
        self.targetDepth = min(max(1, targetDepth), self.capacity / 2)
        self.maximumDepth = min(max(self.targetDepth + 1, maximumDepth), self.capacity - 1)
        payloads = [UInt8](repeating: 0, count: self.capacity * Self.maximumPayload)
        lengths = [Int](repeating: 0, count: self.capacity)
        sequences = [UInt16](repeating: 0, count: self.capacity)
        occupied = [Bool](repeating: false, count: self.capacity)
    }

    /// Frames from the next one to play through the newest stored (0 when none is stored).
    var depth: Int {
        guard started else { return 0 }
        let span = Int(Int16(bitPattern: newest &- expected)) + 1
        return max(0, span)
    }

    /// Stores a received packet. Late packets (already played or skipped), duplicates and oversize
    /// payloads are dropped; a packet far ahead (a new stream) restarts the queue at it.
    mutating func insert(_ payload: UnsafeBufferPointer<UInt8>, sequenceNumber: UInt16) {
        guard payload.count <= Self.maximumPayload, !payload.isEmpty else {
            dropped += 1
            return
        }
        received += 1
        if !started {
            started = true
            expected = sequenceNumber
            newest = sequenceNumber
        }
        let ahead = Int(Int16(bitPattern: sequenceNumber &- expected))
        if ahead < 0 {
            dropped += 1
            return
        }
        if ahead >= capacity {
            clear()
            started = true
            expected = sequenceNumber
            newest = sequenceNumber
        }
        let slot = Int(sequenceNumber) % capacity
        if occupied[slot] && sequences[slot] == sequenceNumber {
            dropped += 1
            return
        }
        occupied[slot] = true
        sequences[slot] = sequenceNumber
        lengths[slot] = payload.count
        payloads.withUnsafeMutableBufferPointer { all in
            _ = UnsafeMutableBufferPointer(rebasing: all[(slot * Self.maximumPayload)...]).update(fromContentsOf: payload)
        }
        if Int16(bitPattern: sequenceNumber &- newest) > 0 { newest = sequenceNumber }
        if depth > maximumDepth {
            while depth > targetDepth + 1 { skipExpected() }
        }
    }

    /// The packet for this tick, copied into `buffer` (at least `maximumPayload` bytes).
    mutating func take(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Take {
        guard started else { return .empty }
        if !playing {
            guard depth >= targetDepth else { return .empty }
            playing = true
        }
        guard depth > 0 else {
            // Ran dry: wait until the target depth is buffered again.
            playing = false
            return .empty
        }
        let slot = Int(expected) % capacity
        defer { expected &+= 1 }
        guard occupied[slot], sequences[slot] == expected else { return .lost }
        occupied[slot] = false
        let count = min(lengths[slot], buffer.count)
        payloads.withUnsafeBufferPointer { all in
            _ = buffer.update(fromContentsOf: UnsafeBufferPointer(rebasing: all[(slot * Self.maximumPayload)..<(slot * Self.maximumPayload + count)]))
        }
        return .packet(count: count)
    }

    /// Forgets every packet (a participant put on hold in the waiting room hears nothing stale later).
    mutating func clear() {
        for i in occupied.indices { occupied[i] = false }
        started = false
        playing = false
    }

    private mutating func skipExpected() {
        let slot = Int(expected) % capacity
        if occupied[slot] && sequences[slot] == expected {
            occupied[slot] = false
            dropped += 1
        }
        expected &+= 1
    }
}
