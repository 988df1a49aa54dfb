import Synchronization
/// Insights events in the `insights_events` table (migration 3).
extension SQLiteAccountStore: InsightsStore {
    public func insertInsightsEvents(_ events: [InsightsEvent]) throws(StoreError) {
        guard !events.isEmpty else { return }
        try db.withLock { (d) throws(StoreError) in
            try d.transaction { (d) throws(StoreError) in
                for event in events {
                    do throws(StoreError) {
                        try d.execute("""
                            INSERT INTO insights_events (account_sid, identity, call_sid, event_group, name, level,
                            timestamp_ms, payload, received_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                            """, [.text(event.accountSid), .text(event.identity), VoiceRows.optional(event.callSid),
                                  .text(event.group), .text(event.name), .text(event.level), .integer(event.timestamp),
                                  .text(event.payload), .integer(event.receivedAt)])
                    } catch {
                        throw VoiceRows.mapInsertError(error, what: "Insights event", accountSid: event.accountSid)
                    }
                }
            }
        }
    }

    public func insightsEvents(_ query: InsightsQuery) throws(StoreError) -> [InsightsEvent] {
        guard query.limit > 0, query.offset >= 0 else { return [] }
        var conditions = ["account_sid = ?1"]
        var values: [SQLValue] = [.text(query.accountSid)]
        if let callSid = query.callSid {
            values.append(.text(callSid))
            conditions.append("call_sid = ?\(values.count)")
        }
        if let identity = query.identity {
            values.append(.text(identity))
            conditions.append("identity = ?\(values.count)")
        }
        values.append(.integer(Int64(query.limit)))
        values.append(.integer(Int64(query.offset)))
        let sql = """
            SELECT account_sid, identity, call_sid, event_group, name, level, timestamp_ms, payload, received_at
            FROM insights_events WHERE \(conditions.joined(separator: " AND "))
            ORDER BY timestamp_ms, rowid LIMIT ?\(values.count - 1) OFFSET ?\(values.count)
            """
        return try db.withLock { (d) throws(StoreError) -> [InsightsEvent] in
            try d.query(sql, values).map { row in
                InsightsEvent(accountSid: row[0].string ?? "", identity: row[1].string ?? "", callSid: row[2].string,
                              group: row[3].string ?? "", name: row[4].string ?? "", level: row[5].string ?? "",
                              timestamp: row[6].int64 ?? 0, payload: row[7].string ?? "{}", receivedAt: row[8].int64 ?? 0)
            }
        }
    }
}
