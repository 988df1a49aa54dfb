import Synchronization
/// Rooms in memory: the twin of `SQLiteAccountStore+Rooms`.
struct InMemoryRoomState {
    var rooms: [RoomRecord] = []
    var participants: [ParticipantRecord] = []
    var tracks: [PublishedTrackRecord] = []
    var subscribeRules: [String: StoredSubscribeRules] = [:]
}

extension InMemoryAccountStore: RoomStore {
    public func insertRoom(_ room: RoomRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard !s.rooms.rooms.contains(where: { $0.sid == room.sid }) else { throw .conflict("room \(room.uniqueName)") }
            if room.status == .inProgress, s.rooms.rooms.contains(where: {
                $0.accountSid == room.accountSid && $0.uniqueName == room.uniqueName && $0.status == .inProgress
            }) { throw .conflict("room \(room.uniqueName)") }
            guard s.accounts.contains(where: { $0.sid == room.accountSid }) else { throw .notFound("account \(room.accountSid)") }
            s.rooms.rooms.append(room)
        }
    }

    public func updateRoom(_ room: RoomRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            try s.rooms.rooms.replace(where: { $0.sid == room.sid && $0.accountSid == room.accountSid }, with: room,
                                      orThrow: .notFound("room \(room.sid)"))
        }
    }

    public func room(sid: String) throws(StoreError) -> RoomRecord? {
        state.withLock { s in s.rooms.rooms.first { $0.sid == sid } }
    }

    public func inProgressRoom(accountSid: String, uniqueName: String) throws(StoreError) -> RoomRecord? {
        state.withLock { s in
            s.rooms.rooms.first { $0.accountSid == accountSid && $0.uniqueName == uniqueName && $0.status == .inProgress }
        }
    }

    public func rooms(_ query: RoomQuery) throws(StoreError) -> [RoomRecord] {
        guard query.limit > 0, query.offset >= 0 else { return [] }
        return state.withLock { s in
            let matching = s.rooms.rooms.enumerated().filter { query.matches($0.element) }
                .sorted { ($0.element.createdAt, $0.offset) > ($1.element.createdAt, $1.offset) }.map(\.element)
            return Array(matching.dropFirst(query.offset).prefix(query.limit))
        }
    }

    public func unfinishedRooms() throws(StoreError) -> [RoomRecord] {
        state.withLock { s in s.rooms.rooms.filter { $0.status == .inProgress } }
    }

    public func insertParticipant(_ participant: ParticipantRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard !s.rooms.participants.contains(where: { $0.sid == participant.sid }) else {
                throw .conflict("participant \(participant.sid)")
            }
            guard s.rooms.rooms.contains(where: { $0.sid == participant.roomSid }) else {
                throw .notFound("account \(participant.accountSid)")
            }
            s.rooms.participants.append(participant)
        }
    }

    public func updateParticipant(_ participant: ParticipantRecord) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            try s.rooms.participants.replace(where: { $0.sid == participant.sid && $0.roomSid == participant.roomSid },
                                             with: participant, orThrow: .notFound("participant \(participant.sid)"))
        }
    }

    public func participant(sid: String) throws(StoreError) -> ParticipantRecord? {
        state.withLock { s in s.rooms.participants.first { $0.sid == sid } }
    }

    public func participants(roomSid: String, status: ParticipantStatus?) throws(StoreError) -> [ParticipantRecord] {
        state.withLock { s in
            s.rooms.participants.enumerated().filter { entry in
                entry.element.roomSid == roomSid && (status.map { entry.element.status == $0 } ?? true)
            }
                .sorted { ($0.element.startTime, $0.offset) < ($1.element.startTime, $1.offset) }.map(\.element)
        }
    }

    public func upsertPublishedTrack(_ track: PublishedTrackRecord) throws(StoreError) {
        state.withLock { s in
            if let i = s.rooms.tracks.firstIndex(where: { $0.sid == track.sid }) {
                var kept = s.rooms.tracks[i]
                kept.name = track.name
                kept.kind = track.kind
                kept.enabled = track.enabled
                kept.updatedAt = track.updatedAt
                s.rooms.tracks[i] = kept
            } else {
                s.rooms.tracks.append(track)
            }
        }
    }

    public func deletePublishedTrack(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            guard let i = s.rooms.tracks.firstIndex(where: { $0.sid == sid }) else { return false }
            s.rooms.tracks.remove(at: i)
            return true
        }
    }

    public func publishedTracks(participantSid: String) throws(StoreError) -> [PublishedTrackRecord] {
        state.withLock { s in
            s.rooms.tracks.enumerated().filter { $0.element.participantSid == participantSid }
                .sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }.map(\.element)
        }
    }

    public func subscribeRules(participantSid: String) throws(StoreError) -> StoredSubscribeRules? {
        state.withLock { s in s.rooms.subscribeRules[participantSid] }
    }

    public func setSubscribeRules(_ rules: StoredSubscribeRules) throws(StoreError) {
        state.withLock { s in s.rooms.subscribeRules[rules.participantSid] = rules }
    }
}
