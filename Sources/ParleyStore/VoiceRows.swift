/// Row ↔ model mapping for the voice tables, shared by the `SQLiteAccountStore+…` extensions.
enum VoiceRows {
    static let applicationColumns = """
        SELECT sid, account_sid, friendly_name, voice_url, voice_method, status_callback, status_callback_method,
        created_at, updated_at FROM applications
        """

    static func application(_ row: [SQLValue]) -> Application {
        let draft = ApplicationDraft(friendlyName: row[2].string ?? "", voiceURL: row[3].string,
                                     voiceMethod: row[4].string ?? "POST", statusCallback: row[5].string,
                                     statusCallbackMethod: row[6].string ?? "POST")
        return Application(sid: row[0].string ?? "", accountSid: row[1].string ?? "", draft: draft,
                           createdAt: row[7].int64 ?? 0, updatedAt: row[8].int64 ?? 0)
    }

    static let callColumns = """
        SELECT sid, account_sid, parent_call_sid, application_sid, from_address, to_address, direction, status,
        start_time, answer_time, end_time, duration, error_code, error_message, status_callback,
        status_callback_method, created_at, updated_at FROM calls
        """

    static func call(_ row: [SQLValue]) -> CallRecord {
        CallRecord(sid: row[0].string ?? "", accountSid: row[1].string ?? "", parentCallSid: row[2].string,
                   applicationSid: row[3].string, from: row[4].string ?? "", to: row[5].string ?? "",
                   direction: row[6].string ?? "", status: CallStatus(rawValue: row[7].string ?? "") ?? .failed,
                   startTime: row[8].int64 ?? 0, answerTime: row[9].int64, endTime: row[10].int64,
                   duration: row[11].int64, errorCode: row[12].int64.map { Int($0) }, errorMessage: row[13].string,
                   statusCallback: row[14].string, statusCallbackMethod: row[15].string,
                   createdAt: row[16].int64 ?? 0, updatedAt: row[17].int64 ?? 0)
    }

    /// Every mutable column of a call, bound as `?2…?17` after the SID (`?1`).
    static func callValues(_ c: CallRecord) -> [SQLValue] {
        [.text(c.sid), .text(c.accountSid), optional(c.parentCallSid), optional(c.applicationSid), .text(c.from),
         .text(c.to), .text(c.direction), .text(c.status.rawValue), .integer(c.startTime), optional(c.answerTime),
         optional(c.endTime), optional(c.duration), optional(c.errorCode.map(Int64.init)), optional(c.errorMessage),
         optional(c.statusCallback), optional(c.statusCallbackMethod), .integer(c.createdAt), .integer(c.updatedAt)]
    }

    static let bindingColumns = """
        SELECT sid, account_sid, identity, provider, device_token, created_at, expires_at FROM push_bindings
        """

    static func binding(_ row: [SQLValue]) -> PushBinding {
        PushBinding(sid: row[0].string ?? "", accountSid: row[1].string ?? "", identity: row[2].string ?? "",
                    provider: row[3].string ?? "", deviceToken: row[4].string ?? "", createdAt: row[5].int64 ?? 0,
                    expiresAt: row[6].int64 ?? 0)
    }

    static let recordingColumns = """
        SELECT sid, account_sid, call_sid, duration, channels, sample_rate, status, file_path, source, created_at
        FROM recordings
        """

    static func recording(_ row: [SQLValue]) -> RecordingRecord {
        RecordingRecord(sid: row[0].string ?? "", accountSid: row[1].string ?? "", callSid: row[2].string ?? "",
                        duration: row[3].int64 ?? 0, channels: Int(row[4].int64 ?? 1),
                        sampleRate: Int(row[5].int64 ?? 8000), status: row[6].string ?? "", filePath: row[7].string ?? "",
                        source: row[8].string ?? "", createdAt: row[9].int64 ?? 0)
    }

    static func optional(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    static func optional(_ value: Int64?) -> SQLValue { value.map(SQLValue.integer) ?? .null }

    /// Maps SQLite constraint failures of an insert to the store's errors: a taken primary key or
    /// unique key → `.conflict(what)`, a missing account (foreign key) → `.notFound("account …")`.
    static func mapInsertError(_ error: StoreError, what: String, accountSid: String) -> StoreError {
        guard case .sqlite(let code, _) = error else { return error }
        switch code {
        case sqliteConstraintPrimaryKey, sqliteConstraintUnique: return .conflict(what)
        case sqliteConstraintForeignKey: return .notFound("account \(accountSid)")
        default: return error
        }
    }

    // Extended result codes (sqlite3.h): SQLITE_CONSTRAINT | n << 8.
    static let sqliteConstraintForeignKey: Int32 = 787
    static let sqliteConstraintPrimaryKey: Int32 = 1555
    static let sqliteConstraintUnique: Int32 = 2067
}
