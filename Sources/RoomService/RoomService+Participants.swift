import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import Signaling
import VideoREST

/// What the room service tells a participant's connection (room signaling implements it). Calls
/// to one link come one at a time, in the order the service made them.
public protocol RoomParticipantLink: Sendable {
    /// A room message for the participant's client; `ref` is the request it answers.
    func send(_ message: SignalingMessage, ref: String?) async
    /// The participant was removed (room ended, `Status=disconnected`, a duplicate identity
    /// joined, `MaxParticipantDuration` reached, its media session closed), after its
    /// `room.disconnected` was sent: the connection forgets it.
    func removed(_ reason: ParleyError) async
}

/// Participants: joining (a room by name or SID, created on first join as a `group` room when
/// none is in progress), leaving, removal, and the timers that go with them.
extension RoomService {
    /// A participant of a live room.
    struct LiveParticipant {
        var record: ParticipantRecord
        /// Its connection; a rejoin (`room.join` with `reconnect`) puts the new one here.
        var link: any RoomParticipantLink
        let order: Int
        /// What its token's video grant lets it do (publish, subscribe, publish data).
        let permissions: RoomPermissions
        /// Its link's calls, in order (a new one with a new link).
        var outbox = SerialWork()
        /// Its media session, once `connect` opened one.
        var session: RoomSession?
        /// It asked for `room.dominantSpeaker`.
        var wantsDominantSpeaker = false
        /// How its downlink is shared among the video tracks it receives.
        var bandwidthProfile = BandwidthProfile()
        /// Its network quality level (0–5), once its session reported.
        var networkLevel: Int?
        /// The `room.networkQuality` it asked for and was sent.
        var qualityReports = QualityReports()
        /// Its paths that are down now (its media, its signaling): while any is, the others were
        /// told it is reconnecting.
        var lostPaths: Set<ParticipantPath> = []
        /// When its first path went down (the reconnect window runs from here).
        var lostSince: MonotonicInstant?
        /// What it may still relay to each other participant of a peer-to-peer room.
        var relayLimits = PeerRelayLimits()
        /// Its unit of its identity's media-session quota (`hold`), given back when it leaves.
        var lease: QuotaLease?

        /// Sends a message on the link after everything posted before it.
        func post(_ message: SignalingMessage, ref: String? = nil) {
            let link = self.link
            outbox.post { await link.send(message, ref: ref) }
        }
    }

    /// One of a participant's two ways to the server.
    public enum ParticipantPath: Sendable, Hashable {
        case media, signaling
    }

    /// A participant's path went away or came back: the others hear `room.participantReconnecting`
    /// when its first path goes, `room.participantReconnected` when its last comes back (Twilio's
    /// participantReconnecting/Reconnected). Unknown participants are ignored.
    public func participant(_ participantSid: String, path: ParticipantPath, reachable: Bool) {
        guard var live = participants[participantSid] else { return }
        let wasLost = !live.lostPaths.isEmpty
        if reachable { live.lostPaths.remove(path) } else { live.lostPaths.insert(path) }
        if live.lostPaths.isEmpty { live.lostSince = nil } else if !wasLost { live.lostSince = configuration.clock.now }
        participants[participantSid] = live
        let reference = RoomParticipantReference(participantSid: participantSid)
        if !wasLost, !live.lostPaths.isEmpty {
            tellOthers(of: live.record, .roomParticipantReconnecting(reference))
        } else if wasLost, live.lostPaths.isEmpty {
            tellOthers(of: live.record, .roomParticipantReconnected(reference))
        }
    }

    /// Joins `identity` to the account's in-progress room named `room` (a name or `RM…` SID),
    /// creating a `group` room when none has that name. A participant already there with the
    /// same identity is removed first (53205), as Twilio does.
    /// - Throws: 53106 (a SID that names no in-progress room), 53105 (the room is full), 53200
    ///   (empty identity), 53100/53101 (bad name).
    public func join(accountSid: String, identity: String, room name: String,
                     link: any RoomParticipantLink) async throws(ParleyError) -> (RoomRecord, ParticipantRecord) {
        try admit(accountSid: accountSid, identity: identity, room: name, link: link)
    }

    /// `join` without a suspension point, so `connect` can join and set up a session in one step.
    func admit(accountSid: String, identity: String, room name: String, permissions: RoomPermissions = .all,
               link: any RoomParticipantLink) throws(ParleyError) -> (RoomRecord, ParticipantRecord) {
        guard !identity.isEmpty else { throw ParleyError(.participantIdentityInvalid, reason: "the token has no identity") }
        guard !name.isEmpty else { throw ParleyError(.roomNameInvalid, reason: "no room name") }
        guard name.utf8.count <= 128 else { throw ParleyError(.roomNameTooLong, reason: "room names are at most 128 bytes") }
        let sid = try liveRoomSid(accountSid: accountSid, name: name)
        guard let room = rooms[sid] else { throw ParleyError(.roomNotFound, reason: "room \(name) is not in progress") }
        if let duplicate = participants.values.first(where: { $0.record.roomSid == sid && $0.record.identity == identity }) {
            remove(duplicate.record.sid, reason: ParleyError(.participantDuplicateIdentity,
                                                                   reason: "\(identity) connected to the room again"))
        }
        let inRoom = participants.values.filter { $0.record.roomSid == sid }.count
        guard inRoom < room.record.maxParticipants else {
            throw ParleyError(.roomMaxParticipantsExceeded, reason: "room \(room.record.uniqueName) has \(inRoom) participants")
        }
        let time = now
        let participant = ParticipantRecord(sid: SID.make("PA"), roomSid: sid, accountSid: accountSid, identity: identity,
                                            startTime: time, updatedAt: time)
        do { try store.insertParticipant(participant) } catch {
            throw ParleyError(.restInternalServer, reason: "cannot store the participant: \(error)")
        }
        participants[participant.sid] = LiveParticipant(record: participant, link: link, order: nextOrdinal(), permissions: permissions)
        bumpTimer(sid)  // no longer unused or empty
        Log.info(.platform, "room \(sid): participant \(participant.sid) connected")
        callBack(sid, participant: participant, event: "participant-connected")
        armDurationLimit(participant.sid, seconds: room.record.maxParticipantDuration)
        return (room.record, participant)
    }

    /// The participant left (or its connection is gone for good): disconnected, called back; an
    /// emptied room waits `EmptyRoomTimeout`.
    public func leave(participantSid: String) {
        guard let live = participants.removeValue(forKey: participantSid) else { return }
        finish(live)
        live.outbox.finish()
    }

    /// Removes a participant: it leaves, and its link is sent `room.disconnected` and told why
    /// (off the actor, so no state change waits on a connection).
    @discardableResult
    func remove(_ participantSid: String, reason: ParleyError) -> ParticipantRecord? {
        guard let live = participants.removeValue(forKey: participantSid) else { return nil }
        let record = finish(live)
        live.post(.roomDisconnected(RoomDisconnected(code: reason.code.rawValue,
                                                     message: reason.failureReason ?? reason.code.text)))
        let link = live.link
        live.outbox.post { await link.removed(reason) }
        live.outbox.finish()
        return record
    }

    /// The participant holds `lease` (a unit of its identity's media-session quota, taken by whoever
    /// joined it) until it leaves; one it held before is given back, and so is `lease` when it is
    /// gone already.
    package func hold(_ lease: QuotaLease, for participantSid: String) {
        guard participants[participantSid] != nil else { return lease.release() }
        participants[participantSid]?.lease?.release()
        participants[participantSid]?.lease = lease
    }

    /// The participants connected to a room, in the order they joined.
    public func connectedParticipants(roomSid: String) -> [ParticipantRecord] {
        participants.values.filter { $0.record.roomSid == roomSid }.sorted { $0.order < $1.order }.map(\.record)
    }

    @discardableResult
    private func finish(_ live: LiveParticipant) -> ParticipantRecord {
        live.lease?.release()
        rules[live.record.sid] = nil
        unpublishAll(of: live.record)
        if let session = live.session { sessionGone(session, of: live.record) } else { peerGone(live.record) }
        reconcileMix(roomSid: live.record.roomSid)
        activityGone(of: live.record)
        var record = live.record
        let time = now
        record.status = .disconnected
        record.endTime = time
        record.duration = time - record.startTime
        record.updatedAt = time
        do { try store.updateParticipant(record) } catch {
            Log.warning(.platform, "participant \(record.sid): cannot store its end: \(error)")
        }
        Log.info(.platform, "room \(record.roomSid): participant \(record.sid) disconnected after \(record.duration ?? 0) s")
        callBack(record.roomSid, participant: record, event: "participant-disconnected")
        if let room = rooms[record.roomSid], connectedParticipants(roomSid: record.roomSid).isEmpty {
            armTimeout(record.roomSid, minutes: room.record.emptyRoomTimeout, reason: "empty")
        }
        return record
    }

    /// The SID of the account's in-progress room `name` (a unique name or SID); a name no room
    /// has makes an ad hoc `group` room.
    private func liveRoomSid(accountSid: String, name: String) throws(ParleyError) -> String {
        if SID.isValid(name, prefix: "RM") {
            guard let room = rooms[name], room.record.accountSid == accountSid else {
                throw ParleyError(.roomNotFound, reason: "no in-progress room \(name)")
            }
            return name
        }
        if let room = rooms.values.first(where: { $0.record.accountSid == accountSid && $0.record.uniqueName == name }) {
            return room.record.sid
        }
        let time = now
        let record = RoomRecord(sid: SID.make("RM"), accountSid: accountSid, uniqueName: name, type: .group,
                                createdAt: time, updatedAt: time)
        do { try store.insertRoom(record) } catch {
            throw ParleyError(.roomCompleted, reason: "cannot create room \(name): \(error)")
        }
        rooms[record.sid] = LiveRoom(record: record)
        Log.info(.platform, "room \(record.sid) created ad hoc by a join")
        return record.sid
    }

    private func armDurationLimit(_ participantSid: String, seconds: Int) {
        let clock = configuration.clock
        Task { [weak self] in
            try? await clock.sleep(for: .seconds(seconds))
            await self?.remove(participantSid, reason: ParleyError(
                .participantSessionLengthExceeded, reason: "MaxParticipantDuration of \(seconds) s reached"))
        }
    }
}
