import Synchronization
/// Rooms (`RM…`), participants (`PA…`) and published tracks (`MT…`) in their tables.
extension SQLiteAccountStore: RoomStore {
    /// Subscribe rules in `subscribe_rules` (migration 9).
    public func subscribeRules(participantSid: String) throws(StoreError) -> StoredSubscribeRules? {
        try db.withLock { (d) throws(StoreError) -> StoredSubscribeRules? in
            try d.query("SELECT participant_sid, room_sid, rules, updated_at FROM subscribe_rules WHERE participant_sid = ?1",
                        [.text(participantSid)]).first.map { r in
                StoredSubscribeRules(participantSid: r[0].string ?? "", roomSid: r[1].string ?? "", rules: r[2].string ?? "[]",
                                     updatedAt: r[3].int64 ?? 0)
            }
        }
    }

    public func setSubscribeRules(_ rules: StoredSubscribeRules) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("""
                INSERT INTO subscribe_rules (participant_sid, room_sid, rules, updated_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT(participant_sid) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at
                """, [.text(rules.participantSid), .text(rules.roomSid), .text(rules.rules), .integer(rules.updatedAt)])
        }
    }

    public func insertRoom(_ room: RoomRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO rooms (sid, account_sid, unique_name, type, status, status_callback, status_callback_method,
                    max_participants, max_participant_duration, record_participants_on_connect, empty_room_timeout,
                    unused_room_timeout, audio_only, video_codecs, end_time, duration, created_at, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
                    """, RoomRows.roomValues(room))
            } catch {
                throw VoiceRows.mapInsertError(error, what: "room \(room.uniqueName)", accountSid: room.accountSid)
            }
        }
    }

    public func updateRoom(_ room: RoomRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("""
                UPDATE rooms SET unique_name = ?3, type = ?4, status = ?5, status_callback = ?6, status_callback_method = ?7,
                max_participants = ?8, max_participant_duration = ?9, record_participants_on_connect = ?10,
                empty_room_timeout = ?11, unused_room_timeout = ?12, audio_only = ?13, video_codecs = ?14, end_time = ?15,
                duration = ?16, created_at = ?17, updated_at = ?18 WHERE sid = ?1 AND account_sid = ?2
                """, RoomRows.roomValues(room))
            guard d.changes == 1 else { throw .notFound("room \(room.sid)") }
        }
    }

    public func room(sid: String) throws(StoreError) -> RoomRecord? {
        try db.withLock { (d) throws(StoreError) -> RoomRecord? in
            try d.query("\(RoomRows.roomColumns) WHERE sid = ?1", [.text(sid)]).first.map(RoomRows.room)
        }
    }

    public func inProgressRoom(accountSid: String, uniqueName: String) throws(StoreError) -> RoomRecord? {
        try db.withLock { (d) throws(StoreError) -> RoomRecord? in
            try d.query("\(RoomRows.roomColumns) WHERE account_sid = ?1 AND unique_name = ?2 AND status = 'in-progress'",
                        [.text(accountSid), .text(uniqueName)]).first.map(RoomRows.room)
        }
    }

    public func rooms(_ query: RoomQuery) throws(StoreError) -> [RoomRecord] {
        guard query.limit > 0, query.offset >= 0 else { return [] }
        var filter = SQLFilter()
        filter.add("account_sid", "=", .text(query.accountSid))
        if let status = query.status { filter.add("status", "=", .text(status.rawValue)) }
        if let name = query.uniqueName { filter.add("unique_name", "=", .text(name)) }
        if let t = query.createdAfter { filter.add("created_at", ">=", .integer(t)) }
        if let t = query.createdBefore { filter.add("created_at", "<=", .integer(t)) }
        let (sql, values) = filter.page(RoomRows.roomColumns, orderBy: "created_at DESC, rowid DESC",
                                        limit: query.limit, offset: query.offset)
        return try db.withLock { (d) throws(StoreError) -> [RoomRecord] in try d.query(sql, values).map(RoomRows.room) }
    }

    public func unfinishedRooms() throws(StoreError) -> [RoomRecord] {
        try db.withLock { (d) throws(StoreError) -> [RoomRecord] in
            try d.query("\(RoomRows.roomColumns) WHERE status = 'in-progress' ORDER BY created_at, rowid", []).map(RoomRows.room)
        }
    }

    public func insertParticipant(_ p: ParticipantRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO participants (sid, room_sid, account_sid, identity, status, start_time, end_time, duration, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                    """, RoomRows.participantValues(p))
            } catch {
                throw VoiceRows.mapInsertError(error, what: "participant \(p.sid)", accountSid: p.accountSid)
            }
        }
    }

    public func updateParticipant(_ p: ParticipantRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("""
                UPDATE participants SET status = ?5, end_time = ?7, duration = ?8, updated_at = ?9 WHERE sid = ?1 AND room_sid = ?2
                AND account_sid = ?3 AND identity = ?4 AND start_time = ?6
                """, RoomRows.participantValues(p))
            guard d.changes == 1 else { throw .notFound("participant \(p.sid)") }
        }
    }

    public func participant(sid: String) throws(StoreError) -> ParticipantRecord? {
        try db.withLock { (d) throws(StoreError) -> ParticipantRecord? in
            try d.query("\(RoomRows.participantColumns) WHERE sid = ?1", [.text(sid)]).first.map(RoomRows.participant)
        }
    }

    public func participants(roomSid: String, status: ParticipantStatus?) throws(StoreError) -> [ParticipantRecord] {
        var sql = "\(RoomRows.participantColumns) WHERE room_sid = ?1"
        var values: [SQLValue] = [.text(roomSid)]
        if let status {
            sql += " AND status = ?2"
            values.append(.text(status.rawValue))
        }
        return try db.withLock { (d) throws(StoreError) -> [ParticipantRecord] in
            try d.query(sql + " ORDER BY start_time, rowid", values).map(RoomRows.participant)
        }
    }

    public func upsertPublishedTrack(_ t: PublishedTrackRecord) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("""
                INSERT INTO published_tracks (sid, participant_sid, room_sid, name, kind, enabled, created_at, updated_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                ON CONFLICT(sid) DO UPDATE SET name = excluded.name, kind = excluded.kind, enabled = excluded.enabled,
                updated_at = excluded.updated_at
                """, [.text(t.sid), .text(t.participantSid), .text(t.roomSid), .text(t.name), .text(t.kind.rawValue),
                      .integer(t.enabled ? 1 : 0), .integer(t.createdAt), .integer(t.updatedAt)])
        }
    }

    public func deletePublishedTrack(sid: String) throws(StoreError) -> Bool {
        try db.withLock { (d) throws(StoreError) -> Bool in
            try d.execute("DELETE FROM published_tracks WHERE sid = ?1", [.text(sid)])
            return d.changes == 1
        }
    }

    public func publishedTracks(participantSid: String) throws(StoreError) -> [PublishedTrackRecord] {
        try db.withLock { (d) throws(StoreError) -> [PublishedTrackRecord] in
            try d.query("""
                SELECT sid, participant_sid, room_sid, name, kind, enabled, created_at, updated_at FROM published_tracks
                WHERE participant_sid = ?1 ORDER BY created_at, rowid
                """, [.text(participantSid)]).map(RoomRows.track)
        }
    }
}

/// Row ↔ model mapping for the room tables.
enum RoomRows {
    static let roomColumns = """
        SELECT sid, account_sid, unique_name, type, status, status_callback, status_callback_method, max_participants,
        max_participant_duration, record_participants_on_connect, empty_room_timeout, unused_room_timeout, audio_only,
        video_codecs, end_time, duration, created_at, updated_at FROM rooms
        """

    static func room(_ r: [SQLValue]) -> RoomRecord {
        RoomRecord(sid: r[0].string ?? "", accountSid: r[1].string ?? "", uniqueName: r[2].string ?? "",
                   type: RoomType(rawValue: r[3].string ?? "") ?? .group, status: RoomStatus(rawValue: r[4].string ?? "") ?? .failed,
                   statusCallback: r[5].string, statusCallbackMethod: r[6].string ?? "POST",
                   maxParticipants: Int(r[7].int64 ?? 50), maxParticipantDuration: Int(r[8].int64 ?? 14_400),
                   recordParticipantsOnConnect: (r[9].int64 ?? 0) != 0, emptyRoomTimeout: Int(r[10].int64 ?? 5),
                   unusedRoomTimeout: Int(r[11].int64 ?? 5), audioOnly: (r[12].int64 ?? 0) != 0,
                   videoCodecs: (r[13].string ?? "").split(separator: ",").map(String.init),
                   endTime: r[14].int64, duration: r[15].int64, createdAt: r[16].int64 ?? 0, updatedAt: r[17].int64 ?? 0)
    }

    static func roomValues(_ r: RoomRecord) -> [SQLValue] {
        [.text(r.sid), .text(r.accountSid), .text(r.uniqueName), .text(r.type.rawValue), .text(r.status.rawValue),
         VoiceRows.optional(r.statusCallback), .text(r.statusCallbackMethod), .integer(Int64(r.maxParticipants)),
         .integer(Int64(r.maxParticipantDuration)), .integer(r.recordParticipantsOnConnect ? 1 : 0),
         .integer(Int64(r.emptyRoomTimeout)), .integer(Int64(r.unusedRoomTimeout)), .integer(r.audioOnly ? 1 : 0),
         .text(r.videoCodecs.joined(separator: ",")), VoiceRows.optional(r.endTime), VoiceRows.optional(r.duration),
         .integer(r.createdAt), .integer(r.updatedAt)]
    }

    static let participantColumns = """
        SELECT sid, room_sid, account_sid, identity, status, start_time, end_time, duration, updated_at FROM participants
        """

    static func participant(_ r: [SQLValue]) -> ParticipantRecord {
        ParticipantRecord(sid: r[0].string ?? "", roomSid: r[1].string ?? "", accountSid: r[2].string ?? "",
                          identity: r[3].string ?? "", status: ParticipantStatus(rawValue: r[4].string ?? "") ?? .disconnected,
                          startTime: r[5].int64 ?? 0, endTime: r[6].int64, duration: r[7].int64, updatedAt: r[8].int64 ?? 0)
    }

    static func participantValues(_ p: ParticipantRecord) -> [SQLValue] {
        [.text(p.sid), .text(p.roomSid), .text(p.accountSid), .text(p.identity), .text(p.status.rawValue),
         .integer(p.startTime), VoiceRows.optional(p.endTime), VoiceRows.optional(p.duration), .integer(p.updatedAt)]
    }

    static func track(_ r: [SQLValue]) -> PublishedTrackRecord {
        PublishedTrackRecord(sid: r[0].string ?? "", participantSid: r[1].string ?? "", roomSid: r[2].string ?? "",
                             name: r[3].string ?? "", kind: TrackKind(rawValue: r[4].string ?? "") ?? .data,
                             enabled: (r[5].int64 ?? 0) != 0, createdAt: r[6].int64 ?? 0, updatedAt: r[7].int64 ?? 0)
    }
}
