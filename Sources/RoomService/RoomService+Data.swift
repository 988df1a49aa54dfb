import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import Signaling

/// Data tracks: a participant publishes one by describing it (`kind` `data`, no `mid`) in
/// `room.join` or `room.offer` and opening a data channel labelled with the track's name on its
/// session (RFC 8832); the channel is the track's source. Its subscribers receive it on a channel
/// the media plane opens toward each (labelled with the track's SID, with the publisher's
/// reliability), in their data channel section, whose mid `room.subscribed` carries. Closing the
/// channel unpublishes the track.
extension RoomService {
    /// Where a data track's messages come from: its publisher's open channel of the track's name.
    func dataSource(of trackSid: String) -> RoomDataChannelAddress? {
        guard let track = tracks[trackSid], track.record.kind == .data,
              let session = participants[track.record.participantSid]?.session,
              session.dataLabels.contains(track.record.name) else { return nil }
        return RoomDataChannelAddress(session: session.id, label: track.record.name)
    }

    /// The data track of that name the participant publishes.
    func publishedData(named name: String, by participantSid: String) -> String? {
        tracks.values.first { $0.record.participantSid == participantSid && $0.record.kind == .data && $0.record.name == name }?
            .record.sid
    }

    /// Routes a subscription: `trackSid`'s source into `slot` (nil empties it) with `priority`; a
    /// data slot is a channel toward `session` labelled with the slot's track SID.
    func route(_ slot: RoomSession.Slot, carrying trackSid: String?, session: String, priority: TrackPriority = .standard) {
        guard slot.kind == .data else {
            return route(trackSid.flatMap(source(of:)), to: RoomTrackAddress(session: session, mid: slot.mid), priority: priority)
        }
        guard let media, let label = slot.trackSid else { return }
        let source = trackSid.flatMap(dataSource(of:))
        mediaWork.post {
            if !(await media.routeData(source, to: RoomDataChannelAddress(session: session, label: label))) {
                Log.warning(.platform, "room media: no data route from \(source.map { "\($0.session)/\($0.label)" } ?? "nothing") "
                            + "to \(session)/\(label)")
            }
        }
    }

    /// A participant's data channel opened or closed: a data track of its name gets its source
    /// (the others' subscriptions take it), or is unpublished.
    func dataChannel(_ label: String, opened: Bool, session: String) {
        guard let sid = sessionOwners[session], participants[sid]?.session != nil else { return }
        if opened { participants[sid]?.session?.dataLabels.insert(label) } else { participants[sid]?.session?.dataLabels.remove(label) }
        guard let trackSid = publishedData(named: label, by: sid) else {
            if opened { Log.debug(.platform, "participant \(sid) opened data channel \(label), which names none of its data tracks") }
            return
        }
        guard opened else {
            unpublish(trackSid: trackSid)
            return
        }
        guard announced.contains(sid) else { return }
        for other in announcedOthers(of: sid) { reconcile(other.record.sid) }
    }

    /// A data track needs a data channel section to arrive in.
    static func checkData(_ described: [RoomTrackInfo], application: String?) throws(ParleyError) {
        if application == nil, let track = described.first(where: { $0.kind == .data }) {
            throw ParleyError(.trackInvalid, reason: "data track \(track.name) needs a data channel section (m=application) in the offer")
        }
    }
}
