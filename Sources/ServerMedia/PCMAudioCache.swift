/// A least-recently-used cache of decoded audio bounded by total bytes and entry count, for
/// synthesized speech and fetched `<Play>` files. A value owned by one actor; not thread-safe.
struct PCMAudioCache<Key: Hashable & Sendable>: Sendable {
    let maximumBytes: Int
    let maximumEntries: Int
    private var entries: [Key: (audio: PCMAudio, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0

    init(maximumBytes: Int, maximumEntries: Int) {
        self.maximumBytes = max(0, maximumBytes)
        self.maximumEntries = max(0, maximumEntries)
    }

    var count: Int { entries.count }

    mutating func value(for key: Key) -> PCMAudio? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.audio, clock)
        return entry.audio
    }

    /// Stores `audio` unless it alone exceeds the byte bound, evicting the least recently used
    /// entries until both bounds hold.
    mutating func insert(_ audio: PCMAudio, for key: Key) {
        guard audio.byteCount <= maximumBytes, maximumEntries > 0 else { return }
        if let old = entries.removeValue(forKey: key) { bytes -= old.audio.byteCount }
        while !entries.isEmpty, bytes + audio.byteCount > maximumBytes || entries.count >= maximumEntries {
            guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
            bytes -= oldest.value.audio.byteCount
            entries.removeValue(forKey: oldest.key)
        }
        clock += 1
        entries[key] = (audio, clock)
        bytes += audio.byteCount
    }

    mutating func removeAll() {
        entries.removeAll()
        bytes = 0
    }
}
