import Synchronization
/// SIP bindings in memory: the twin of `SQLiteAccountStore+SIPRegistrations`.
extension InMemoryAccountStore: SIPRegistrationStore {
    private static func key(_ accountSid: String, _ aor: String) -> String { "\(accountSid) \(aor)" }

    public func replaceSIPBindings(accountSid: String, aor: String, with bindings: [SIPBindingRecord]) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard s.accounts.contains(where: { $0.sid == accountSid }) else { throw .notFound("account \(accountSid)") }
            s.sipBindings[Self.key(accountSid, aor)] = bindings.isEmpty ? nil : bindings
        }
    }

    public func sipBindings(accountSid: String, aor: String) throws(StoreError) -> [SIPBindingRecord] {
        state.withLock { s in s.sipBindings[Self.key(accountSid, aor)] ?? [] }
    }

    public func deleteExpiredSIPBindings(now: Int64) throws(StoreError) -> Int {
        state.withLock { s in
            var removed = 0
            for (key, bindings) in s.sipBindings {
                let live = bindings.filter { $0.expiresAt > now }
                removed += bindings.count - live.count
                s.sipBindings[key] = live.isEmpty ? nil : live
            }
            return removed
        }
    }

    public func sipBindingCount() throws(StoreError) -> Int {
        state.withLock { s in s.sipBindings.values.reduce(0) { $0 + $1.count } }
    }
}
