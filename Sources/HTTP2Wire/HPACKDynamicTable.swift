/// The HPACK dynamic table (RFC 7541 §2.3.2, §4): newest entry first, bounded by `maxSize`
/// octets as §4.1 counts them, oldest entries evicted first (§4.4).
public struct HPACKDynamicTable: Sendable {
    struct Entry: Sendable {
        var name: String
        var value: String
        /// The name's length in octets as received.
        var nameSize: Int
        /// The §4.1 size computed from the octets as received, so that accounting matches the peer
        /// even when the octets were not valid UTF-8.
        var size: Int
    }

    /// Oldest first; index 1 of the table is the last element.
    private var entries: [Entry] = []
    /// The sum of the entries' sizes.
    public private(set) var size = 0
    /// The current maximum size (changed by size updates, §6.3).
    public private(set) var maxSize: Int

    public init(maxSize: Int) {
        self.maxSize = max(0, maxSize)
    }

    public var count: Int { entries.count }

    /// The entry at dynamic index `i` (1 is the newest).
    func entry(_ i: Int) -> Entry? {
        guard i >= 1, i <= entries.count else { return nil }
        return entries[entries.count - i]
    }

    /// The fields, newest first (RFC 7541 Appendix C lists tables this way).
    public var fields: [(name: String, value: String)] { entries.reversed().map { ($0.name, $0.value) } }

    /// Adds an entry (§4.4): evicts until it fits; an entry larger than the table empties it.
    mutating func add(name: String, value: String, nameSize: Int, size: Int) {
        guard size <= maxSize else {
            entries.removeAll(keepingCapacity: true)
            self.size = 0
            return
        }
        evict(toFit: maxSize - size)
        entries.append(Entry(name: name, value: value, nameSize: nameSize, size: size))
        self.size += size
    }

    /// Sets the maximum size, evicting as needed (§4.3).
    mutating func resize(_ newMax: Int) {
        maxSize = max(0, newMax)
        evict(toFit: maxSize)
    }

    /// The newest index holding exactly `name`/`value`, and the newest holding `name`.
    func find(name: String, value: String) -> (exact: Int?, name: Int?) {
        var nameOnly: Int?
        for offset in 0..<entries.count {
            let entry = entries[entries.count - 1 - offset]
            guard entry.name == name else { continue }
            if entry.value == value { return (offset + 1, nameOnly ?? offset + 1) }
            if nameOnly == nil { nameOnly = offset + 1 }
        }
        return (nil, nameOnly)
    }

    private mutating func evict(toFit limit: Int) {
        var drop = 0
        while size > limit, drop < entries.count {
            size -= entries[drop].size
            drop += 1
        }
        entries.removeFirst(drop)
    }
}
