import Synchronization

/// Recordings, compositions and recording rules in memory: the twin of
/// `SQLiteAccountStore+RoomRecordings`.
struct InMemoryRecordingState {
    var recordings: [RoomRecordingRecord] = []
    var compositions: [CompositionRecord] = []
    var rules: [String: StoredRecordingRules] = [:]
}

extension InMemoryAccountStore: RoomRecordingStore {
    public func insertRoomRecording(_ recording: RoomRecordingRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard !s.recordings.recordings.contains(where: { $0.sid == recording.sid }) else {
                throw .conflict("recording \(recording.sid)")
            }
            guard s.accounts.contains(where: { $0.sid == recording.accountSid }) else {
                throw .notFound("account \(recording.accountSid)")
            }
            s.recordings.recordings.append(recording)
        }
    }

    public func updateRoomRecording(_ recording: RoomRecordingRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            try s.recordings.recordings.replace(
                where: { $0.sid == recording.sid && $0.accountSid == recording.accountSid && $0.roomSid == recording.roomSid },
                with: recording, orThrow: .notFound("recording \(recording.sid)"))
        }
    }

    public func roomRecording(sid: String) throws(StoreError) -> RoomRecordingRecord? {
        state.withLock { s in s.recordings.recordings.first { $0.sid == sid } }
    }

    public func roomRecordings(_ query: RoomRecordingQuery) throws(StoreError) -> [RoomRecordingRecord] {
        state.withLock { s in Self.newestFirst(s.recordings.recordings.filter(query.matches), \.createdAt) }
    }

    public func unfinishedRoomRecordings() throws(StoreError) -> [RoomRecordingRecord] {
        state.withLock { s in s.recordings.recordings.filter { $0.status == .processing } }
    }

    public func insertComposition(_ composition: CompositionRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard !s.recordings.compositions.contains(where: { $0.sid == composition.sid }) else {
                throw .conflict("composition \(composition.sid)")
            }
            guard s.accounts.contains(where: { $0.sid == composition.accountSid }) else {
                throw .notFound("account \(composition.accountSid)")
            }
            s.recordings.compositions.append(composition)
        }
    }

    public func updateComposition(_ composition: CompositionRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            try s.recordings.compositions.replace(
                where: { $0.sid == composition.sid && $0.accountSid == composition.accountSid },
                with: composition, orThrow: .notFound("composition \(composition.sid)"))
        }
    }

    public func composition(sid: String) throws(StoreError) -> CompositionRecord? {
        state.withLock { s in s.recordings.compositions.first { $0.sid == sid } }
    }

    public func compositions(_ query: CompositionQuery) throws(StoreError) -> [CompositionRecord] {
        state.withLock { s in Self.newestFirst(s.recordings.compositions.filter(query.matches), \.createdAt) }
    }

    public func unfinishedCompositions() throws(StoreError) -> [CompositionRecord] {
        state.withLock { s in s.recordings.compositions.filter { $0.status == .enqueued || $0.status == .processing } }
    }

    public func recordingRules(roomSid: String) throws(StoreError) -> StoredRecordingRules? {
        state.withLock { s in s.recordings.rules[roomSid] }
    }

    public func setRecordingRules(_ rules: StoredRecordingRules) throws(StoreError) {
        state.withLock { s in
            var kept = rules
            if let old = s.recordings.rules[rules.roomSid] { kept = StoredRecordingRules(
                roomSid: old.roomSid, rules: rules.rules, createdAt: old.createdAt, updatedAt: rules.updatedAt) }
            s.recordings.rules[rules.roomSid] = kept
        }
    }

    /// Newest first, later insertions first among equal times (SQLite's `created_at DESC, rowid DESC`).
    private static func newestFirst<T>(_ items: [T], _ time: KeyPath<T, Int64>) -> [T] {
        items.enumerated().sorted { ($0.element[keyPath: time], $0.offset) > ($1.element[keyPath: time], $1.offset) }
            .map(\.element)
    }
}
