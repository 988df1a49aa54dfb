import Synchronization
/// Calls (`CA…`) in the `calls` table, listed newest first with Twilio's filters.
extension SQLiteAccountStore {
    public func insertCall(_ call: CallRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO calls (sid, account_sid, parent_call_sid, application_sid, from_address, to_address,
                    direction, status, start_time, answer_time, end_time, duration, error_code, error_message,
                    status_callback, status_callback_method, created_at, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                    """, VoiceRows.callValues(call))
            } catch {
                throw VoiceRows.mapInsertError(error, what: "call \(call.sid)", accountSid: call.accountSid)
            }
        }
    }

    public func updateCall(_ call: CallRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            // The account is fixed at insertion: ?2 is bound but not written.
            try d.execute("""
                UPDATE calls SET parent_call_sid = ?3, application_sid = ?4, from_address = ?5, to_address = ?6,
                direction = ?7, status = ?8, start_time = ?9, answer_time = ?10, end_time = ?11, duration = ?12,
                error_code = ?13, error_message = ?14, status_callback = ?15, status_callback_method = ?16,
                created_at = ?17, updated_at = ?18 WHERE sid = ?1 AND account_sid = ?2
                """, VoiceRows.callValues(call))
            guard d.changes == 1 else { throw .notFound("call \(call.sid)") }
        }
    }

    public func unfinishedCalls() throws(StoreError) -> [CallRecord] {
        let open = CallStatus.allCases.filter { !$0.isFinal }.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try db.withLock { (d) throws(StoreError) -> [CallRecord] in
            try d.query("\(VoiceRows.callColumns) WHERE status IN (\(open)) ORDER BY start_time, rowid", []).map(VoiceRows.call)
        }
    }

    public func recordLiveness(at time: Int64) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("INSERT INTO server_liveness (id, alive_at) VALUES (1, ?1) "
                          + "ON CONFLICT(id) DO UPDATE SET alive_at = excluded.alive_at", [.integer(time)])
        }
    }

    public func lastLiveness() throws(StoreError) -> Int64? {
        try db.withLock { (d) throws(StoreError) -> Int64? in
            guard case .integer(let time)? = try d.query("SELECT alive_at FROM server_liveness WHERE id = 1", []).first?.first
            else { return nil }
            return time
        }
    }

    public func call(sid: String) throws(StoreError) -> CallRecord? {
        try db.withLock { (d) throws(StoreError) -> CallRecord? in
            try d.query("\(VoiceRows.callColumns) WHERE sid = ?1", [.text(sid)]).first.map(VoiceRows.call)
        }
    }

    public func deleteCall(sid: String) throws(StoreError) -> Bool {
        try db.withLock { (d) throws(StoreError) -> Bool in
            try d.execute("DELETE FROM calls WHERE sid = ?1", [.text(sid)])
            return d.changes == 1
        }
    }

    public func calls(_ query: CallQuery) throws(StoreError) -> [CallRecord] {
        guard query.limit > 0, query.offset >= 0 else { return [] }
        var filter = SQLFilter()
        filter.add("account_sid", "=", .text(query.accountSid))
        if let status = query.status { filter.add("status", "=", .text(status.rawValue)) }
        if let to = query.to { filter.add("to_address", "=", .text(to)) }
        if let from = query.from { filter.add("from_address", "=", .text(from)) }
        if let parent = query.parentCallSid { filter.add("parent_call_sid", "=", .text(parent)) }
        if let t = query.startedOnOrAfter { filter.add("start_time", ">=", .integer(t)) }
        if let t = query.startedOnOrBefore { filter.add("start_time", "<=", .integer(t)) }
        if let t = query.endedOnOrAfter { filter.add("end_time", ">=", .integer(t)) }
        if let t = query.endedOnOrBefore { filter.add("end_time", "<=", .integer(t)) }
        let (sql, values) = filter.page(VoiceRows.callColumns, orderBy: "start_time DESC, rowid DESC",
                                        limit: query.limit, offset: query.offset)
        return try db.withLock { (d) throws(StoreError) -> [CallRecord] in
            try d.query(sql, values).map(VoiceRows.call)
        }
    }
}
