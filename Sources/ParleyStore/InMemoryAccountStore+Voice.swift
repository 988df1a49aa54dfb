import Synchronization
/// The in-memory twin's voice tables. Rows keep insertion order, standing in for SQLite's rowid.
struct InMemoryVoiceState {
    var applications: [Application] = []
    var calls: [CallRecord] = []
    var bindings: [PushBinding] = []
    var recordings: [RecordingRecord] = []
    var aliveAt: Int64?
}

extension InMemoryAccountStore: VoiceStore {
    // MARK: Applications

    public func createApplication(_ draft: ApplicationDraft, accountSid: String) throws(StoreError) -> Application {
        let time = now()
        let application = Application(sid: SID.make("AP"), accountSid: accountSid, draft: draft, createdAt: time,
                                      updatedAt: time)
        try state.withLock { (s: inout State) throws(StoreError) in
            try Self.requireAccount(accountSid, in: s)
            s.voice.applications.append(application)
        }
        return application
    }

    public func application(sid: String) throws(StoreError) -> Application? {
        state.withLock { s in s.voice.applications.first { $0.sid == sid } }
    }

    public func applications(accountSid: String, friendlyName: String?) throws(StoreError) -> [Application] {
        state.withLock { s in
            s.voice.applications.filter { $0.accountSid == accountSid && (friendlyName == nil || $0.friendlyName == friendlyName) }
                .sorted { $0.createdAt < $1.createdAt }  // stable: ties keep insertion order
        }
    }

    public func updateApplication(_ application: Application) throws(StoreError) -> Application {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> Application in
            guard let i = s.voice.applications.firstIndex(where: { $0.sid == application.sid }) else {
                throw .notFound("application \(application.sid)")
            }
            let old = s.voice.applications[i]
            let updated = Application(sid: old.sid, accountSid: old.accountSid, draft: application.draft,
                                      createdAt: old.createdAt, updatedAt: time)
            s.voice.applications[i] = updated
            return updated
        }
    }

    public func deleteApplication(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let i = s.voice.applications.firstIndex(where: { $0.sid == sid }) else { return false }
            s.voice.applications.remove(at: i)
            return true
        }
    }

    // MARK: Calls

    public func insertCall(_ call: CallRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard !s.voice.calls.contains(where: { $0.sid == call.sid }) else { throw .conflict("call \(call.sid)") }
            try Self.requireAccount(call.accountSid, in: s)
            s.voice.calls.append(call)
        }
    }

    public func updateCall(_ call: CallRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            try s.voice.calls.replace(where: { $0.sid == call.sid && $0.accountSid == call.accountSid }, with: call,
                                      orThrow: .notFound("call \(call.sid)"))
        }
    }

    public func call(sid: String) throws(StoreError) -> CallRecord? {
        state.withLock { s in s.voice.calls.first { $0.sid == sid } }
    }

    public func unfinishedCalls() throws(StoreError) -> [CallRecord] {
        state.withLock { s in
            s.voice.calls.enumerated().filter { !$0.element.status.isFinal }
                .sorted { ($0.element.startTime, $0.offset) < ($1.element.startTime, $1.offset) }.map(\.element)
        }
    }

    public func recordLiveness(at time: Int64) throws(StoreError) {
        state.withLock { $0.voice.aliveAt = time }
    }

    public func lastLiveness() throws(StoreError) -> Int64? {
        state.withLock { $0.voice.aliveAt }
    }

    public func deleteCall(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let i = s.voice.calls.firstIndex(where: { $0.sid == sid }) else { return false }
            s.voice.calls.remove(at: i)
            return true
        }
    }

    public func calls(_ query: CallQuery) throws(StoreError) -> [CallRecord] {
        guard query.limit > 0, query.offset >= 0 else { return [] }
        return state.withLock { s in
            // Newest first: start time descending, then later insertions first (SQLite: rowid DESC).
            let matching = s.voice.calls.enumerated().filter { query.matches($0.element) }
                .sorted { ($0.element.startTime, $0.offset) > ($1.element.startTime, $1.offset) }
                .map(\.element)
            return Array(matching.dropFirst(query.offset).prefix(query.limit))
        }
    }

    // MARK: Push bindings

    public func upsertBinding(_ binding: PushBinding) throws(StoreError) -> PushBinding {
        try state.withLock { (s: inout State) throws(StoreError) -> PushBinding in
            if let i = s.voice.bindings.firstIndex(where: {
                $0.accountSid == binding.accountSid && $0.identity == binding.identity && $0.deviceToken == binding.deviceToken
            }) {
                s.voice.bindings[i].provider = binding.provider
                s.voice.bindings[i].expiresAt = binding.expiresAt
                return s.voice.bindings[i]
            }
            guard !s.voice.bindings.contains(where: { $0.sid == binding.sid }) else {
                throw .conflict("push binding \(binding.sid)")
            }
            try Self.requireAccount(binding.accountSid, in: s)
            s.voice.bindings.append(binding)
            return binding
        }
    }

    public func bindings(accountSid: String, identity: String, now: Int64) throws(StoreError) -> [PushBinding] {
        state.withLock { s in
            s.voice.bindings.filter { $0.accountSid == accountSid && $0.identity == identity && $0.expiresAt > now }
                .sorted { $0.createdAt < $1.createdAt }
        }
    }

    public func renewBinding(sid: String, expiresAt: Int64) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard let i = s.voice.bindings.firstIndex(where: { $0.sid == sid }) else { throw .notFound("push binding \(sid)") }
            s.voice.bindings[i].expiresAt = expiresAt
        }
    }

    public func deleteBinding(accountSid: String, identity: String, deviceToken: String) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let i = s.voice.bindings.firstIndex(where: {
                $0.accountSid == accountSid && $0.identity == identity && $0.deviceToken == deviceToken
            }) else { return false }
            s.voice.bindings.remove(at: i)
            return true
        }
    }

    // MARK: Recordings

    public func insertRecording(_ recording: RecordingRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard !s.voice.recordings.contains(where: { $0.sid == recording.sid }) else {
                throw .conflict("recording \(recording.sid)")
            }
            try Self.requireAccount(recording.accountSid, in: s)
            s.voice.recordings.append(recording)
        }
    }

    public func recording(sid: String) throws(StoreError) -> RecordingRecord? {
        state.withLock { s in s.voice.recordings.first { $0.sid == sid } }
    }

    public func deleteRecording(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let i = s.voice.recordings.firstIndex(where: { $0.sid == sid }) else { return false }
            s.voice.recordings.remove(at: i)
            return true
        }
    }

    public func recordings(accountSid: String, callSid: String?) throws(StoreError) -> [RecordingRecord] {
        state.withLock { s in
            s.voice.recordings.enumerated()
                .filter { $0.element.accountSid == accountSid && (callSid == nil || $0.element.callSid == callSid) }
                .sorted { ($0.element.createdAt, $0.offset) > ($1.element.createdAt, $1.offset) }
                .map(\.element)
        }
    }

    /// `.notFound` unless the account exists (SQLite's foreign keys do the same).
    private static func requireAccount(_ sid: String, in s: State) throws(StoreError) {
        guard s.accounts.contains(where: { $0.sid == sid }) else { throw .notFound("account \(sid)") }
    }
}

extension CallQuery {
    /// Whether `call` passes every filter (paging aside); the SQL in `SQLiteAccountStore+Calls` says the same.
    func matches(_ call: CallRecord) -> Bool {
        guard call.accountSid == accountSid else { return false }
        if let status, call.status != status { return false }
        if let to, call.to != to { return false }
        if let from, call.from != from { return false }
        if let parentCallSid, call.parentCallSid != parentCallSid { return false }
        if let startedOnOrAfter, call.startTime < startedOnOrAfter { return false }
        if let startedOnOrBefore, call.startTime > startedOnOrBefore { return false }
        if let endedOnOrAfter { guard let end = call.endTime, end >= endedOnOrAfter else { return false } }
        if let endedOnOrBefore { guard let end = call.endTime, end <= endedOnOrBefore else { return false } }
        return true
    }
}
