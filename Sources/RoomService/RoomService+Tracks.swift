import ParleyCore
import ParleyStore
import SFU
import Signaling
import VideoREST

/// Published tracks and who receives them: publishing, unpublishing, enabling and disabling,
/// with `track-added`, `track-removed`, `track-enabled` and `track-disabled`, and subscriptions
/// decided by each subscriber's rules (`SubscribeRules`; everything by default).
extension RoomService {
    /// Most tracks one participant may publish at once.
    static let maxTracksPerParticipant = 16

    /// A track a connected participant publishes.
    struct LiveTrack {
        var record: PublishedTrackRecord
        var priority: String
        /// The m-section it arrives in, on the publisher's media session.
        var mid: String?
        let order: Int
    }

    /// Publishes a track of a connected participant.
    /// - Throws: 53204 (not connected), 53301/53302 (bad name), 53304 (the participant has a
    ///   track of that name), 53203 (too many tracks of the participant or the room), 53300 (priority not low/standard/high).
    public func publish(participantSid: String, name: String, kind: TrackKind, priority: String = "standard",
                        mid: String? = nil) throws(ParleyError) -> PublishedTrackRecord {
        guard let participant = participants[participantSid] else {
            throw ParleyError(.participantNotFound, reason: "participant \(participantSid) is not connected")
        }
        try participant.permissions.check(publishing: kind)
        guard !name.isEmpty else { throw ParleyError(.trackNameInvalid, reason: "a track needs a name") }
        guard name.utf8.count <= 128 else { throw ParleyError(.trackNameTooLong, reason: "track names are at most 128 bytes") }
        guard ["low", "standard", "high"].contains(priority) else {
            throw ParleyError(.trackInvalid, reason: "priority must be low, standard or high")
        }
        let own = tracks.values.filter { $0.record.participantSid == participantSid }
        guard !own.contains(where: { $0.record.name == name }) else {
            throw ParleyError(.trackNameIsDuplicated, reason: "a track named \(name) is already published")
        }
        guard own.count < Self.maxTracksPerParticipant else {
            throw ParleyError(.participantMaxTracksExceeded, reason: "at most \(Self.maxTracksPerParticipant) tracks")
        }
        let cap = configuration.maxTracksPerRoom
        guard tracks.values.count(where: { $0.record.roomSid == participant.record.roomSid }) < cap else {
            throw ParleyError(.participantMaxTracksExceeded, reason: "the room has \(cap) published tracks, its limit")
        }
        let time = now
        let record = PublishedTrackRecord(sid: SID.make("MT"), participantSid: participantSid,
                                          roomSid: participant.record.roomSid, name: name, kind: kind,
                                          createdAt: time, updatedAt: time)
        do { try store.upsertPublishedTrack(record) } catch {
            throw ParleyError(.restInternalServer, reason: "cannot store the track: \(error)")
        }
        tracks[record.sid] = LiveTrack(record: record, priority: priority, mid: mid, order: nextOrdinal())
        callBack(track: record, participant: participant.record, event: "track-added")
        trackPublished(record.sid)
        reconcileRecordings(roomSid: record.roomSid)
        reconcileMix(roomSid: record.roomSid)
        return record
    }

    /// Unpublishes a track (`track-removed`); false if it is not published.
    @discardableResult
    public func unpublish(trackSid: String) -> Bool {
        guard let track = tracks[trackSid], let publisher = participants[track.record.participantSid] else { return false }
        remove(track.record, of: publisher.record)
        return true
    }

    private func remove(_ track: PublishedTrackRecord, of publisher: ParticipantRecord) {
        tracks[track.sid] = nil
        _ = try? store.deletePublishedTrack(sid: track.sid)
        stopRecording(trackSid: track.sid)
        callBack(track: track, participant: publisher, event: "track-removed")
        trackUnpublished(track)
        reconcileRecordings(roomSid: track.roomSid)
        reconcileMix(roomSid: track.roomSid)
    }

    /// Enables or disables a published track (`track-enabled`, `track-disabled`); false if it is
    /// not published or already so.
    @discardableResult
    public func setEnabled(trackSid: String, _ enabled: Bool) -> Bool {
        guard var track = tracks[trackSid], track.record.enabled != enabled,
              let participant = participants[track.record.participantSid] else { return false }
        track.record.enabled = enabled
        track.record.updatedAt = now
        tracks[trackSid] = track
        _ = try? store.upsertPublishedTrack(track.record)
        callBack(track: track.record, participant: participant.record, event: enabled ? "track-enabled" : "track-disabled")
        tellOthers(of: participant.record, .roomTrackChanged(RoomTrackChanged(
            participantSid: participant.record.sid, trackSid: trackSid, enabled: enabled)))
        return true
    }

    /// The tracks a participant publishes, in the order it published them.
    public func publishedTracks(participantSid: String) -> [PublishedTrackRecord] {
        tracks.values.filter { $0.record.participantSid == participantSid }.sorted { $0.order < $1.order }.map(\.record)
    }

    /// What a connected participant receives: every other participant's track its rules include.
    func subscriptions(of participantSid: String) -> [SubscribedTrack] {
        guard let subscriber = participants[participantSid], subscriber.permissions.canSubscribe else { return [] }
        let rules = self.rules[participantSid] ?? .subscribeAll
        return tracks.values.filter { track in
            guard track.record.roomSid == subscriber.record.roomSid, track.record.participantSid != participantSid,
                  let publisher = participants[track.record.participantSid] else { return false }
            return rules.subscribes(to: SubscribeRules.TrackDescriptor(
                sid: track.record.sid, name: track.record.name, kind: track.record.kind.rawValue, priority: track.priority,
                publisherIdentity: publisher.record.identity))
        }
        .sorted { $0.order < $1.order }
        .map { SubscribedTrack(trackSid: $0.record.sid, name: $0.record.name, kind: $0.record.kind, enabled: $0.record.enabled,
                               publisherSid: $0.record.participantSid, createdAt: $0.record.createdAt,
                               updatedAt: $0.record.updatedAt) }
    }

    /// A leaving participant's tracks go first (`track-removed` each, before it disconnects).
    func unpublishAll(of publisher: ParticipantRecord) {
        for track in publishedTracks(participantSid: publisher.sid) { remove(track, of: publisher) }
    }

    private func callBack(track: PublishedTrackRecord, participant: ParticipantRecord, event: String) {
        emit(track.roomSid) { room, sequence, now in
            RoomCallbacks.track(track, participant: participant, room: room, event: event, sequence: sequence, now: now)
        }
    }
}
