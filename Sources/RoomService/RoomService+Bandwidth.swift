import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import Signaling

extension BandwidthProfile {
    /// A profile from `room.join`'s `bandwidthProfile.video`: what it leaves out takes the defaults.
    public init(_ wire: RoomBandwidthProfile) {
        self.init()
        if let mode = wire.mode.flatMap({ Mode(rawValue: $0.rawValue) }) { self.mode = mode }
        maxSubscriptionBitrate = wire.maxSubscriptionBitrate
        if let priority = wire.dominantSpeakerPriority.flatMap({ TrackPriority(name: $0.rawValue) }) { dominantSpeakerPriority = priority }
        if let switchOff = wire.trackSwitchOffMode.flatMap({ SwitchOffMode(rawValue: $0.rawValue) }) { trackSwitchOffMode = switchOff }
        for (priority, size) in wire.renderDimensions {
            guard let key = TrackPriority(name: priority.rawValue) else { continue }
            renderDimensions[key] = Dimensions(width: size.width, height: size.height)
        }
    }
}

/// How each subscriber's downlink is shared (issue 16 §2, Twilio's bandwidth profiles): the media
/// plane allocates a subscriber's budget among its video slots by the priority the service gives
/// each slot — the track's published priority, raised to the profile's `dominantSpeakerPriority`
/// while its publisher holds the floor — and the profile the subscriber joined with. A slot the
/// allocation switches off or back on becomes `room.trackSwitchedOff` / `room.trackSwitchedOn`
/// to its subscriber.
extension RoomService {
    /// The priority `subscriberSid`'s slot carrying `trackSid` gets.
    func slotPriority(of trackSid: String, for subscriberSid: String) -> TrackPriority {
        guard let track = tracks[trackSid] else { return .standard }
        let published = TrackPriority(name: track.priority) ?? .standard
        guard let live = participants[subscriberSid] else { return published }
        let speaking = rooms[live.record.roomSid]?.speakers.dominant == track.record.participantSid
        return live.bandwidthProfile.effectivePriority(published, dominantSpeaker: speaking)
    }

    /// The floor moved from `old` to `new`: the video slots carrying their tracks get their new
    /// priorities (a route to the same source only updates it).
    func speakerChanged(from old: String?, to new: String?, roomSid: String) {
        let speakers = Set([old, new].compactMap { $0 })
        guard !speakers.isEmpty else { return }
        for live in participants.values where live.record.roomSid == roomSid {
            guard let session = live.session else { continue }
            for slot in session.slots where slot.kind == .video {
                guard let sid = slot.trackSid, let track = tracks[sid], speakers.contains(track.record.participantSid) else { continue }
                route(source(of: sid), to: RoomTrackAddress(session: session.id, mid: slot.mid),
                      priority: slotPriority(of: sid, for: live.record.sid))
            }
        }
    }

    /// The media plane switched a receive slot off or on: its subscriber hears of the track in it.
    func trackSwitched(session: String, mid: String, off: Bool) {
        guard let sid = sessionOwners[session], let live = participants[sid],
              let trackSid = live.session?.slots.first(where: { $0.mid == mid })?.trackSid else { return }
        let reference = RoomTrackReference(trackSid: trackSid)
        live.post(off ? .roomTrackSwitchedOff(reference) : .roomTrackSwitchedOn(reference))
    }

    /// Hands a participant's bandwidth profile to the media plane for its session.
    func applyBandwidthProfile(of participantSid: String) {
        guard let media, let live = participants[participantSid], let session = live.session?.id else { return }
        let profile = live.bandwidthProfile
        mediaWork.post { await media.setBandwidthProfile(profile, session: session) }
    }
}
