import Synchronization

/// Track recordings (`RT…`), compositions (`CJ…`) and recording rules in their tables.
extension SQLiteAccountStore: RoomRecordingStore {
    public func insertRoomRecording(_ r: RoomRecordingRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO room_recordings (sid, account_sid, room_sid, participant_sid, source_sid, track_name, kind, codec,
                    container, status, duration, size, offset_ms, file_path, created_at, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
                    """, RecordingRows.recordingValues(r))
            } catch {
                throw VoiceRows.mapInsertError(error, what: "recording \(r.sid)", accountSid: r.accountSid)
            }
        }
    }

    public func updateRoomRecording(_ r: RoomRecordingRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("""
                UPDATE room_recordings SET track_name = ?6, kind = ?7, codec = ?8, container = ?9, status = ?10,
                duration = ?11, size = ?12, offset_ms = ?13, file_path = ?14, updated_at = ?16
                WHERE sid = ?1 AND account_sid = ?2 AND room_sid = ?3 AND participant_sid = ?4 AND source_sid = ?5
                AND created_at = ?15
                """, RecordingRows.recordingValues(r))
            guard d.changes == 1 else { throw .notFound("recording \(r.sid)") }
        }
    }

    public func roomRecording(sid: String) throws(StoreError) -> RoomRecordingRecord? {
        try db.withLock { (d) throws(StoreError) -> RoomRecordingRecord? in
            try d.query("\(RecordingRows.recordingColumns) WHERE sid = ?1", [.text(sid)]).first.map(RecordingRows.recording)
        }
    }

    public func roomRecordings(_ query: RoomRecordingQuery) throws(StoreError) -> [RoomRecordingRecord] {
        var filter = SQLFilter()
        filter.add("account_sid", "=", .text(query.accountSid))
        if let room = query.roomSid { filter.add("room_sid", "=", .text(room)) }
        if let status = query.status { filter.add("status", "=", .text(status.rawValue)) }
        if let source = query.sourceSid { filter.add("source_sid", "=", .text(source)) }
        if let kind = query.kind { filter.add("kind", "=", .text(kind.rawValue)) }
        if let t = query.createdAfter { filter.add("created_at", ">=", .integer(t)) }
        if let t = query.createdBefore { filter.add("created_at", "<=", .integer(t)) }
        let (sql, values) = filter.page(RecordingRows.recordingColumns, orderBy: "created_at DESC, rowid DESC",
                                        limit: Int(Int32.max), offset: 0)
        // Grouping SIDs name the room or the participant: checked on the rows.
        return try db.withLock { (d) throws(StoreError) -> [RoomRecordingRecord] in
            try d.query(sql, values).map(RecordingRows.recording)
        }.filter(query.matches)
    }

    public func unfinishedRoomRecordings() throws(StoreError) -> [RoomRecordingRecord] {
        try db.withLock { (d) throws(StoreError) -> [RoomRecordingRecord] in
            try d.query("\(RecordingRows.recordingColumns) WHERE status = 'processing' ORDER BY created_at, rowid", [])
                .map(RecordingRows.recording)
        }
    }

    public func insertComposition(_ c: CompositionRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO compositions (sid, account_sid, room_sid, status, audio_sources, audio_sources_excluded,
                    video_layout, resolution, format, trim, status_callback, status_callback_method, duration, size, bitrate,
                    file_path, error_code, error_message, created_at, completed_at, deleted_at, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)
                    """, RecordingRows.compositionValues(c))
            } catch {
                throw VoiceRows.mapInsertError(error, what: "composition \(c.sid)", accountSid: c.accountSid)
            }
        }
    }

    public func updateComposition(_ c: CompositionRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("""
                UPDATE compositions SET status = ?4, audio_sources = ?5, audio_sources_excluded = ?6, video_layout = ?7,
                resolution = ?8, format = ?9, trim = ?10, status_callback = ?11, status_callback_method = ?12, duration = ?13,
                size = ?14, bitrate = ?15, file_path = ?16, error_code = ?17, error_message = ?18, completed_at = ?20,
                deleted_at = ?21, updated_at = ?22 WHERE sid = ?1 AND account_sid = ?2 AND room_sid = ?3 AND created_at = ?19
                """, RecordingRows.compositionValues(c))
            guard d.changes == 1 else { throw .notFound("composition \(c.sid)") }
        }
    }

    public func composition(sid: String) throws(StoreError) -> CompositionRecord? {
        try db.withLock { (d) throws(StoreError) -> CompositionRecord? in
            try d.query("\(RecordingRows.compositionColumns) WHERE sid = ?1", [.text(sid)]).first.map(RecordingRows.composition)
        }
    }

    public func compositions(_ query: CompositionQuery) throws(StoreError) -> [CompositionRecord] {
        var filter = SQLFilter()
        filter.add("account_sid", "=", .text(query.accountSid))
        if let room = query.roomSid { filter.add("room_sid", "=", .text(room)) }
        if let status = query.status { filter.add("status", "=", .text(status.rawValue)) }
        if let t = query.createdAfter { filter.add("created_at", ">=", .integer(t)) }
        if let t = query.createdBefore { filter.add("created_at", "<=", .integer(t)) }
        let (sql, values) = filter.page(RecordingRows.compositionColumns, orderBy: "created_at DESC, rowid DESC",
                                        limit: Int(Int32.max), offset: 0)
        return try db.withLock { (d) throws(StoreError) -> [CompositionRecord] in
            try d.query(sql, values).map(RecordingRows.composition)
        }
    }

    public func unfinishedCompositions() throws(StoreError) -> [CompositionRecord] {
        try db.withLock { (d) throws(StoreError) -> [CompositionRecord] in
            try d.query("""
                \(RecordingRows.compositionColumns) WHERE status IN ('enqueued', 'processing') ORDER BY created_at, rowid
                """, []).map(RecordingRows.composition)
        }
    }

    public func recordingRules(roomSid: String) throws(StoreError) -> StoredRecordingRules? {
        try db.withLock { (d) throws(StoreError) -> StoredRecordingRules? in
            try d.query("SELECT room_sid, rules, created_at, updated_at FROM recording_rules WHERE room_sid = ?1",
                        [.text(roomSid)]).first.map { r in
                StoredRecordingRules(roomSid: r[0].string ?? "", rules: r[1].string ?? "[]", createdAt: r[2].int64 ?? 0,
                                     updatedAt: r[3].int64 ?? 0)
            }
        }
    }

    public func setRecordingRules(_ rules: StoredRecordingRules) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("""
                INSERT INTO recording_rules (room_sid, rules, created_at, updated_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(room_sid) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at
                """, [.text(rules.roomSid), .text(rules.rules), .integer(rules.createdAt), .integer(rules.updatedAt)])
        }
    }
}

/// Row ↔ model mapping for the recording tables.
enum RecordingRows {
    static let recordingColumns = """
        SELECT sid, account_sid, room_sid, participant_sid, source_sid, track_name, kind, codec, container, status, duration,
        size, offset_ms, file_path, created_at, updated_at FROM room_recordings
        """

    static func recording(_ r: [SQLValue]) -> RoomRecordingRecord {
        RoomRecordingRecord(sid: r[0].string ?? "", accountSid: r[1].string ?? "", roomSid: r[2].string ?? "",
                            participantSid: r[3].string ?? "", sourceSid: r[4].string ?? "", trackName: r[5].string ?? "",
                            kind: TrackKind(rawValue: r[6].string ?? "") ?? .audio, codec: r[7].string ?? "",
                            container: r[8].string ?? "", status: RoomRecordingStatus(rawValue: r[9].string ?? "") ?? .failed,
                            duration: r[10].int64, size: r[11].int64, offset: r[12].int64 ?? 0, filePath: r[13].string ?? "",
                            createdAt: r[14].int64 ?? 0, updatedAt: r[15].int64 ?? 0)
    }

    static func recordingValues(_ r: RoomRecordingRecord) -> [SQLValue] {
        [.text(r.sid), .text(r.accountSid), .text(r.roomSid), .text(r.participantSid), .text(r.sourceSid), .text(r.trackName),
         .text(r.kind.rawValue), .text(r.codec), .text(r.container), .text(r.status.rawValue), VoiceRows.optional(r.duration),
         VoiceRows.optional(r.size), .integer(r.offset), .text(r.filePath), .integer(r.createdAt), .integer(r.updatedAt)]
    }

    static let compositionColumns = """
        SELECT sid, account_sid, room_sid, status, audio_sources, audio_sources_excluded, video_layout, resolution, format, trim,
        status_callback, status_callback_method, duration, size, bitrate, file_path, error_code, error_message, created_at,
        completed_at, deleted_at, updated_at FROM compositions
        """

    /// Source lists are kept one name a line (names are track names: no newlines in them).
    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    static func composition(_ r: [SQLValue]) -> CompositionRecord {
        CompositionRecord(sid: r[0].string ?? "", accountSid: r[1].string ?? "", roomSid: r[2].string ?? "",
                          status: CompositionStatus(rawValue: r[3].string ?? "") ?? .failed, audioSources: list(r[4].string),
                          audioSourcesExcluded: list(r[5].string), videoLayout: r[6].string ?? "",
                          resolution: r[7].string ?? "640x480", format: r[8].string ?? "webm", trim: (r[9].int64 ?? 1) != 0,
                          statusCallback: r[10].string, statusCallbackMethod: r[11].string ?? "POST", duration: r[12].int64,
                          size: r[13].int64, bitrate: r[14].int64, filePath: r[15].string, errorCode: r[16].int64.map { Int($0) },
                          errorMessage: r[17].string, createdAt: r[18].int64 ?? 0, completedAt: r[19].int64,
                          deletedAt: r[20].int64, updatedAt: r[21].int64 ?? 0)
    }

    static func compositionValues(_ c: CompositionRecord) -> [SQLValue] {
        [.text(c.sid), .text(c.accountSid), .text(c.roomSid), .text(c.status.rawValue),
         .text(c.audioSources.joined(separator: "\n")), .text(c.audioSourcesExcluded.joined(separator: "\n")),
         .text(c.videoLayout), .text(c.resolution), .text(c.format), .integer(c.trim ? 1 : 0),
         VoiceRows.optional(c.statusCallback), .text(c.statusCallbackMethod), VoiceRows.optional(c.duration),
         VoiceRows.optional(c.size), VoiceRows.optional(c.bitrate), VoiceRows.optional(c.filePath),
         VoiceRows.optional(c.errorCode.map(Int64.init)), VoiceRows.optional(c.errorMessage), .integer(c.createdAt),
         VoiceRows.optional(c.completedAt), VoiceRows.optional(c.deletedAt), .integer(c.updatedAt)]
    }
}
