import Synchronization
/// Push bindings and recordings in the `push_bindings` and `recordings` tables.
extension SQLiteAccountStore {
    public func upsertBinding(_ binding: PushBinding) throws(StoreError) -> PushBinding {
        try db.withLock { (d) throws(StoreError) -> PushBinding in
            try d.transaction { (d) throws(StoreError) -> PushBinding in
                do throws(StoreError) {
                    // The unique (account, identity, device token) key makes a re-registration a renewal:
                    // the first SID and creation time stay.
                    try d.execute("""
                        INSERT INTO push_bindings (sid, account_sid, identity, provider, device_token, created_at, expires_at)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                        ON CONFLICT (account_sid, identity, device_token)
                        DO UPDATE SET provider = excluded.provider, expires_at = excluded.expires_at
                        """, [.text(binding.sid), .text(binding.accountSid), .text(binding.identity), .text(binding.provider),
                              .text(binding.deviceToken), .integer(binding.createdAt), .integer(binding.expiresAt)])
                } catch {
                    throw VoiceRows.mapInsertError(error, what: "push binding \(binding.sid)", accountSid: binding.accountSid)
                }
                let rows = try d.query("\(VoiceRows.bindingColumns) WHERE account_sid = ?1 AND identity = ?2 AND device_token = ?3",
                                       [.text(binding.accountSid), .text(binding.identity), .text(binding.deviceToken)])
                guard let row = rows.first else { throw .notFound("push binding \(binding.sid)") }
                return VoiceRows.binding(row)
            }
        }
    }

    public func bindings(accountSid: String, identity: String, now: Int64) throws(StoreError) -> [PushBinding] {
        try db.withLock { (d) throws(StoreError) -> [PushBinding] in
            try d.query("""
                \(VoiceRows.bindingColumns) WHERE account_sid = ?1 AND identity = ?2 AND expires_at > ?3
                ORDER BY created_at, rowid
                """, [.text(accountSid), .text(identity), .integer(now)]).map(VoiceRows.binding)
        }
    }

    public func renewBinding(sid: String, expiresAt: Int64) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("UPDATE push_bindings SET expires_at = ?2 WHERE sid = ?1", [.text(sid), .integer(expiresAt)])
            guard d.changes == 1 else { throw .notFound("push binding \(sid)") }
        }
    }

    public func deleteBinding(accountSid: String, identity: String, deviceToken: String) throws(StoreError) -> Bool {
        try db.withLock { (d) throws(StoreError) -> Bool in
            try d.execute("DELETE FROM push_bindings WHERE account_sid = ?1 AND identity = ?2 AND device_token = ?3",
                          [.text(accountSid), .text(identity), .text(deviceToken)])
            return d.changes == 1
        }
    }

    public func insertRecording(_ recording: RecordingRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO recordings (sid, account_sid, call_sid, duration, channels, sample_rate, status, file_path,
                    source, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                    """, [.text(recording.sid), .text(recording.accountSid), .text(recording.callSid),
                          .integer(recording.duration), .integer(Int64(recording.channels)),
                          .integer(Int64(recording.sampleRate)), .text(recording.status), .text(recording.filePath),
                          .text(recording.source), .integer(recording.createdAt)])
            } catch {
                throw VoiceRows.mapInsertError(error, what: "recording \(recording.sid)", accountSid: recording.accountSid)
            }
        }
    }

    public func recording(sid: String) throws(StoreError) -> RecordingRecord? {
        try db.withLock { (d) throws(StoreError) -> RecordingRecord? in
            try d.query("\(VoiceRows.recordingColumns) WHERE sid = ?1", [.text(sid)]).first.map(VoiceRows.recording)
        }
    }

    public func deleteRecording(sid: String) throws(StoreError) -> Bool {
        try db.withLock { (d) throws(StoreError) -> Bool in
            try d.execute("DELETE FROM recordings WHERE sid = ?1", [.text(sid)])
            return d.changes == 1
        }
    }

    public func recordings(accountSid: String, callSid: String?) throws(StoreError) -> [RecordingRecord] {
        try db.withLock { (d) throws(StoreError) -> [RecordingRecord] in
            let rows = if let callSid {
                try d.query("\(VoiceRows.recordingColumns) WHERE account_sid = ?1 AND call_sid = ?2 ORDER BY created_at DESC, rowid DESC",
                            [.text(accountSid), .text(callSid)])
            } else {
                try d.query("\(VoiceRows.recordingColumns) WHERE account_sid = ?1 ORDER BY created_at DESC, rowid DESC",
                            [.text(accountSid)])
            }
            return rows.map(VoiceRows.recording)
        }
    }
}
