import Synchronization
/// SIP bindings in the `sip_bindings` table, one row per contact of an address of record.
extension SQLiteAccountStore: SIPRegistrationStore {
    private static let columns = "SELECT contact, expires_at, q_millis, call_id, cseq, instance, reg_id, source FROM sip_bindings"

    public func replaceSIPBindings(accountSid: String, aor: String, with bindings: [SIPBindingRecord]) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.transaction { (d) throws(StoreError) in
                guard try Self.replace(SIPBindingChange(accountSid: accountSid, aor: aor, bindings: bindings), in: d) else {
                    throw .notFound("account \(accountSid)")
                }
            }
        }
    }

    /// The whole batch in one transaction (one WAL commit); changes for a missing account are skipped.
    public func replaceSIPBindings(_ changes: [SIPBindingChange]) throws(StoreError) {
        guard !changes.isEmpty else { return }
        try db.withLock { (d) throws(StoreError) in
            try d.transaction { (d) throws(StoreError) in
                for change in changes { _ = try Self.replace(change, in: d) }
            }
        }
    }

    /// Inside a transaction: false (and nothing written) when the account does not exist.
    private static func replace(_ change: SIPBindingChange, in d: SQLiteDatabase) throws(StoreError) -> Bool {
        let (accountSid, aor) = (change.accountSid, change.aor)
        guard try !d.query("SELECT 1 FROM accounts WHERE sid = ?1", [.text(accountSid)]).isEmpty else { return false }
        try d.execute("DELETE FROM sip_bindings WHERE account_sid = ?1 AND aor = ?2", [.text(accountSid), .text(aor)])
        for (position, b) in change.bindings.enumerated() {
            try d.execute("""
                INSERT INTO sip_bindings (account_sid, aor, position, contact, expires_at, q_millis, call_id, cseq, instance, reg_id, source)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                """, [.text(accountSid), .text(aor), .integer(Int64(position)), .text(b.contact), .integer(b.expiresAt),
                      b.qMillis.map { .integer(Int64($0)) } ?? .null, .text(b.callID), .integer(b.cseq),
                      b.instance.map { .text($0) } ?? .null, b.regID.map { .integer(Int64($0)) } ?? .null, .text(b.source)])
        }
        return true
    }

    public func sipBindings(accountSid: String, aor: String) throws(StoreError) -> [SIPBindingRecord] {
        try db.withLock { (d) throws(StoreError) -> [SIPBindingRecord] in
            try d.query("\(Self.columns) WHERE account_sid = ?1 AND aor = ?2 ORDER BY position", [.text(accountSid), .text(aor)]).map { row in
                SIPBindingRecord(contact: row[0].string ?? "", expiresAt: row[1].int64 ?? 0, qMillis: row[2].int64.map { Int($0) },
                                 callID: row[3].string ?? "", cseq: row[4].int64 ?? 0, instance: row[5].string,
                                 regID: row[6].int64.map { Int($0) }, source: row[7].string ?? "")
            }
        }
    }

    public func deleteExpiredSIPBindings(now: Int64) throws(StoreError) -> Int {
        try db.withLock { (d) throws(StoreError) -> Int in
            try d.execute("DELETE FROM sip_bindings WHERE expires_at <= ?1", [.integer(now)])
            return d.changes
        }
    }

    public func sipBindingCount() throws(StoreError) -> Int {
        try db.withLock { (d) throws(StoreError) -> Int in
            Int(try d.query("SELECT count(*) FROM sip_bindings").first?.first?.int64 ?? 0)
        }
    }
}
