/// The packets a `JitterBuffer` holds: a fixed number of slots, each with room for one payload,
/// allocated once. Frames are found by their unwrapped RTP timestamp with a linear scan (the
/// buffer holds a few dozen frames at most), so nothing is allocated per packet.
struct JitterBufferStore: Sendable {
    struct Entry: Sendable {
        /// Unwrapped RTP timestamp of the frame.
        var timestamp: Int64 = 0
        /// Unwrapped sequence number; nil for a redundant RED block.
        var sequence: Int64?
        /// Samples per channel the frame lasts.
        var duration = 0
        /// Arrival of the packet that brought it (µs).
        var arrival: Int64 = 0
        var payloadType: UInt8 = 0
        var marker = false
        var length = 0
        var inUse = false

        var isRedundant: Bool { sequence == nil }
        var end: Int64 { timestamp + Int64(duration) }
    }

    private(set) var entries: [Entry]
    private var bytes: [UInt8]
    let maxPayloadBytes: Int
    private(set) var count = 0

    init(capacity: Int, maxPayloadBytes: Int) {
        entries = [Entry](repeating: Entry(), count: capacity)
        bytes = [UInt8](repeating: 0, count: capacity * maxPayloadBytes)
        self.maxPayloadBytes = maxPayloadBytes
    }

    var isFull: Bool { count == entries.count }

    /// The slot holding the frame that starts at `timestamp`.
    func index(of timestamp: Int64) -> Int? {
        var seen = 0
        for i in entries.indices where entries[i].inUse {
            if entries[i].timestamp == timestamp { return i }
            seen += 1
            if seen == count { break }
        }
        return nil
    }

    /// The slot of the earliest frame starting at or after `timestamp` (primaries only if asked).
    func earliest(atOrAfter timestamp: Int64, primaryOnly: Bool = false) -> Int? {
        var best: Int?
        var seen = 0
        for i in entries.indices where entries[i].inUse {
            if seen == count { break }
            seen += 1
            guard entries[i].timestamp >= timestamp, !(primaryOnly && entries[i].isRedundant) else { continue }
            if let b = best, entries[b].timestamp <= entries[i].timestamp { continue }
            best = i
        }
        return best
    }

    /// The end of the newest frame held.
    var newestEnd: Int64? {
        guard count > 0 else { return nil }
        var newest: Int64?
        for entry in entries where entry.inUse { newest = max(newest ?? entry.end, entry.end) }
        return newest
    }

    /// Copies `payload` into a free slot; nil when none is free or the payload is too large.
    mutating func store(_ entry: Entry, payload: UnsafeRawBufferPointer) -> Int? {
        guard payload.count <= maxPayloadBytes, count < entries.count else { return nil }
        // A plain loop: the generic algorithms allocate when unspecialized (debug builds).
        for i in entries.indices where !entries[i].inUse {
            replace(i, with: entry, payload: payload)
            count += 1
            return i
        }
        return nil
    }

    /// Overwrites slot `i` (in use) with another frame.
    mutating func replace(_ i: Int, with entry: Entry, payload: UnsafeRawBufferPointer) {
        var entry = entry
        entry.inUse = true
        entry.length = payload.count
        entries[i] = entry
        let start = i * maxPayloadBytes
        bytes.withUnsafeMutableBytes { raw in
            guard !payload.isEmpty else { return }
            UnsafeMutableRawBufferPointer(rebasing: raw[start..<start + payload.count]).copyMemory(from: payload)
        }
    }

    mutating func remove(_ i: Int) {
        guard entries[i].inUse else { return }
        entries[i].inUse = false
        count -= 1
    }

    /// Removes every frame starting before `timestamp`; returns how many were packets (not RED blocks).
    mutating func removeAll(before timestamp: Int64) -> Int {
        var packets = 0
        var seen = 0
        let held = count
        for i in entries.indices where entries[i].inUse {
            if seen == held { break }
            seen += 1
            guard entries[i].timestamp < timestamp else { continue }
            if !entries[i].isRedundant { packets += 1 }
            remove(i)
        }
        return packets
    }

    /// Empties the store; returns how many packets (not RED blocks) it held.
    mutating func removeAll() -> Int { removeAll(before: .max) }

    func withPayload<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let start = i * maxPayloadBytes
        let length = entries[i].length
        return bytes.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[start..<start + length]))
        }
    }
}
