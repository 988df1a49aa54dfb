import Synchronization

/// The location table in memory in front of a `SIPRegistrationStore` (the registrar's hot path):
/// reads are served from memory (an address of record is read from `backing` once), changes are
/// applied in memory at once and written to `backing` later by `flush()`, many addresses of
/// record in one `replaceSIPBindings(_:)` batch (one SQLite transaction). Only the latest change
/// of an address of record waits; at most `maxPending` wait (the next change flushes inline), so
/// memory is bounded and a restart loses at most what waited. Whoever owns it calls `flush()`
/// soon after changes (the registrar: once per loop turn) and on shutdown.
///
/// Reading `backing` directly sees changes only after the flush. One process owns the table: a
/// store shared by several nodes needs them to read through instead.
public final class WriteBehindSIPRegistrations: SIPRegistrationStore {
    private struct Key: Hashable {
        var accountSid: String
        var aor: String
    }

    private struct State {
        /// What `backing` holds plus what waits: authoritative for every key present.
        var table: [Key: [SIPBindingRecord]] = [:]
        /// Keys changed since the last flush, in first-change order.
        var pending: [Key] = []
        var pendingSet: Set<Key> = []
        var failedFlushes = 0
    }

    /// The store written behind.
    public let backing: any SIPRegistrationStore
    /// Changed addresses of record that may wait for a flush.
    public let maxPending: Int
    /// Addresses of record kept in memory; past it, those with nothing waiting are dropped (read again when asked).
    public let maxCached: Int
    private let state = Mutex(State())
    /// Held while a batch is written, so batches reach `backing` in order.
    private let writing = Mutex(())

    public init(backing: any SIPRegistrationStore, maxPending: Int = 4096, maxCached: Int = 500_000) {
        self.backing = backing
        self.maxPending = max(1, maxPending)
        self.maxCached = max(1, maxCached)
    }

    /// Changes waiting for `flush()`.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Batches `backing` refused (their changes were kept for the next flush while there was room).
    public var failedFlushes: Int { state.withLock { $0.failedFlushes } }

    public func replaceSIPBindings(accountSid: String, aor: String, with bindings: [SIPBindingRecord]) throws(StoreError) {
        let key = Key(accountSid: accountSid, aor: aor)
        let full = state.withLock { s in
            s.table[key] = bindings
            if s.pendingSet.insert(key).inserted { s.pending.append(key) }
            return s.pending.count >= maxPending
        }
        if full { try flush() }
    }

    public func replaceSIPBindings(_ changes: [SIPBindingChange]) throws(StoreError) {
        for change in changes { try replaceSIPBindings(accountSid: change.accountSid, aor: change.aor, with: change.bindings) }
    }

    public func sipBindings(accountSid: String, aor: String) throws(StoreError) -> [SIPBindingRecord] {
        let key = Key(accountSid: accountSid, aor: aor)
        if let found = state.withLock({ $0.table[key] }) { return found }
        let stored = try backing.sipBindings(accountSid: accountSid, aor: aor)
        return state.withLock { s in
            if let changed = s.table[key] { return changed }  // a change won the race: it is newer
            if s.table.count >= maxCached { s.table = s.table.filter { s.pendingSet.contains($0.key) } }
            s.table[key] = stored
            return stored
        }
    }

    /// Writes what waits to `backing` in one batch. On failure the changes wait again (unless
    /// newer ones came or there is no room) and the error is thrown.
    public func flush() throws(StoreError) {
        try writing.withLock { (_) throws(StoreError) in
            let batch = state.withLock { s -> [SIPBindingChange] in
                defer { (s.pending, s.pendingSet) = ([], []) }
                return s.pending.map { SIPBindingChange(accountSid: $0.accountSid, aor: $0.aor, bindings: s.table[$0] ?? []) }
            }
            guard !batch.isEmpty else { return }
            do throws(StoreError) {
                try backing.replaceSIPBindings(batch)
            } catch {
                state.withLock { s in
                    s.failedFlushes += 1
                    for change in batch where s.pending.count < maxPending {
                        let key = Key(accountSid: change.accountSid, aor: change.aor)
                        if s.pendingSet.insert(key).inserted { s.pending.append(key) }
                    }
                }
                throw error
            }
        }
    }

    /// Flushes, then drops expired bindings from memory and from `backing`; how many `backing` removed.
    public func deleteExpiredSIPBindings(now: Int64) throws(StoreError) -> Int {
        try flush()
        state.withLock { s in
            for (key, bindings) in s.table where bindings.contains(where: { $0.expiresAt <= now }) {
                s.table[key] = bindings.filter { $0.expiresAt > now }
            }
        }
        return try backing.deleteExpiredSIPBindings(now: now)
    }

    public func sipBindingCount() throws(StoreError) -> Int {
        try flush()
        return try backing.sipBindingCount()
    }
}
