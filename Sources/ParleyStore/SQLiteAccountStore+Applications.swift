import Synchronization
/// Applications (`AP…`) in the `applications` table.
extension SQLiteAccountStore: VoiceStore {
    public func createApplication(_ draft: ApplicationDraft, accountSid: String) throws(StoreError) -> Application {
        let time = now()
        let application = Application(sid: SID.make("AP"), accountSid: accountSid, draft: draft, createdAt: time,
                                      updatedAt: time)
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO applications (sid, account_sid, friendly_name, voice_url, voice_method, status_callback,
                    status_callback_method, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                    """, [.text(application.sid), .text(accountSid), .text(draft.friendlyName), VoiceRows.optional(draft.voiceURL),
                          .text(draft.voiceMethod), VoiceRows.optional(draft.statusCallback),
                          .text(draft.statusCallbackMethod), .integer(time), .integer(time)])
            } catch {
                throw VoiceRows.mapInsertError(error, what: "application \(application.sid)", accountSid: accountSid)
            }
        }
        return application
    }

    public func application(sid: String) throws(StoreError) -> Application? {
        try db.withLock { (d) throws(StoreError) -> Application? in
            try d.query("\(VoiceRows.applicationColumns) WHERE sid = ?1", [.text(sid)]).first.map(VoiceRows.application)
        }
    }

    public func applications(accountSid: String, friendlyName: String?) throws(StoreError) -> [Application] {
        try db.withLock { (d) throws(StoreError) -> [Application] in
            let rows = if let friendlyName {
                try d.query("\(VoiceRows.applicationColumns) WHERE account_sid = ?1 AND friendly_name = ?2 ORDER BY created_at, rowid",
                            [.text(accountSid), .text(friendlyName)])
            } else {
                try d.query("\(VoiceRows.applicationColumns) WHERE account_sid = ?1 ORDER BY created_at, rowid",
                            [.text(accountSid)])
            }
            return rows.map(VoiceRows.application)
        }
    }

    public func updateApplication(_ application: Application) throws(StoreError) -> Application {
        let time = now()
        return try db.withLock { (d) throws(StoreError) -> Application in
            try d.execute("""
                UPDATE applications SET friendly_name = ?2, voice_url = ?3, voice_method = ?4, status_callback = ?5,
                status_callback_method = ?6, updated_at = ?7 WHERE sid = ?1
                """, [.text(application.sid), .text(application.friendlyName), VoiceRows.optional(application.voiceURL),
                      .text(application.voiceMethod), VoiceRows.optional(application.statusCallback),
                      .text(application.statusCallbackMethod), .integer(time)])
            guard d.changes == 1,
                  let row = try d.query("\(VoiceRows.applicationColumns) WHERE sid = ?1", [.text(application.sid)]).first
            else { throw .notFound("application \(application.sid)") }
            return VoiceRows.application(row)
        }
    }

    public func deleteApplication(sid: String) throws(StoreError) -> Bool {
        try db.withLock { (d) throws(StoreError) -> Bool in
            try d.execute("DELETE FROM applications WHERE sid = ?1", [.text(sid)])
            return d.changes == 1
        }
    }
}
