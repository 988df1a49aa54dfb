import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import Signaling

/// Rejoining after a dropped connection (`room.join` with `reconnect.participantSid`, docs/
/// signaling.md §12): a participant whose path is down keeps its SID for `reconnectWindow`; a
/// join on a new connection that names it, with the same identity and room, takes it over. The
/// new offer's session replaces the old one: tracks published again under the same name and
/// kind keep their SIDs (the others' slots are re-routed to the new sections), tracks not
/// published again are unpublished, new ones published (a recorded track gets a new recording);
/// the others hear `room.participantReconnected` and nothing else about it.
extension RoomService {
    /// How long a participant whose path went down may be rejoined.
    public static let reconnectWindow: Duration = .seconds(30)

    /// `sid` when it names a participant with media of this account, identity and room (name or
    /// SID) whose path has been down for less than `reconnectWindow`.
    func reconnectable(_ sid: String?, accountSid: String, identity: String, room: String) -> String? {
        guard let sid, let live = participants[sid], live.session != nil, live.record.accountSid == accountSid,
              live.record.identity == identity, let since = live.lostSince,
              configuration.clock.now < since.advanced(by: Self.reconnectWindow),
              let record = rooms[live.record.roomSid]?.record, record.sid == room || record.uniqueName == room else { return nil }
        return sid
    }

    /// Moves participant `sid` onto `link` and the session `description` opened (see above), and
    /// posts its `room.joined`.
    func rejoin(_ sid: String, description: RoomMediaDescription, tracks described: [RoomTrackInfo],
                automaticSubscription: Bool, dominantSpeaker: Bool, networkQuality: Bool,
                bandwidthProfile: RoomBandwidthProfile?, ref: String?,
                link: any RoomParticipantLink) throws(ParleyError) -> RoomJoined {
        guard var live = participants[sid], let old = live.session, let room = rooms[live.record.roomSid]?.record else {
            throw ParleyError(.participantNotFound, reason: "participant \(sid) left meanwhile")
        }
        sessionOwners[old.id] = nil
        if let media { mediaWork.post { await media.close(session: old.id) } }
        live.outbox.finish()
        live.link = link
        live.outbox = SerialWork()
        live.lostPaths = []
        live.lostSince = nil
        live.session = RoomSession(description, automaticSubscription: automaticSubscription)
        live.wantsDominantSpeaker = dominantSpeaker
        live.qualityReports = QualityReports(wanted: networkQuality)
        if let bandwidthProfile { live.bandwidthProfile = BandwidthProfile(bandwidthProfile) }
        participants[sid] = live
        sessionOwners[description.session] = sid
        applyBandwidthProfile(of: sid)
        Log.info(.platform, "room \(room.sid): participant \(sid) rejoined on a new connection")
        tellOthers(of: live.record, .roomParticipantReconnected(RoomParticipantReference(participantSid: sid)))
        do throws(ParleyError) {
            try republish(described, of: sid)
        } catch {
            leave(participantSid: sid)
            throw error
        }
        // Recordings and the room's mix tap the tracks' new sections.
        reconcileRecordings(roomSid: room.sid)
        reconcileMix(roomSid: room.sid)
        return sendJoined(sid, room: room, answer: description.answer, ref: ref)
    }

    /// A rejoined participant's tracks: media tracks described again (same name and kind) keep
    /// their SID in their new section, and the others' slots carrying them are re-routed; the
    /// rest are unpublished, and new ones published. Data tracks are published anew (their
    /// channels are the new session's).
    private func republish(_ described: [RoomTrackInfo], of sid: String) throws(ParleyError) {
        var fresh = described
        for track in publishedTracks(participantSid: sid) {
            guard track.kind != .data,
                  let index = fresh.firstIndex(where: { $0.name == track.name && $0.kind.rawValue == track.kind.rawValue }) else {
                unpublish(trackSid: track.sid)
                continue
            }
            let again = fresh.remove(at: index)
            stopRecording(trackSid: track.sid)  // its file ends with the old section; a new one starts
            tracks[track.sid]?.mid = again.mid
            if track.enabled != again.enabled { setEnabled(trackSid: track.sid, again.enabled) }
            for other in participants.values where other.record.roomSid == track.roomSid && other.record.sid != sid {
                guard let session = other.session, let slot = session.slot(carrying: track.sid) else { continue }
                route(slot, carrying: track.sid, session: session.id, priority: slotPriority(of: track.sid, for: other.record.sid))
            }
        }
        try publish(fresh, of: sid)
    }
}
