import ParleyCore
import RoomService
import SDP
import Signaling
import Synchronization
import WebRTC

/// What a WHIP or WHEP offer means to its room, read as the room media plane will read it
/// (`MediaOffer(roomOffer:)`): the tracks its sending sections publish and its receive slots.
struct RoomResourceOffer: Equatable {
    /// One published track per accepted sending section, in offer order: named by the section's
    /// `a=msid` track id when it has a usable one (RFC 8830 §2), else `whip-audio`, `whip-video`,
    /// `whip-audio-2`, … (names unique, at most 128 bytes).
    var tracks: [RoomTrackInfo]
    /// Accepted receiving sections per kind.
    var slots: [RoomTrackKind: Int]

    /// - Throws: 53403 (unusable offer), 53404 (no section with a codec rooms forward).
    init(sdp: String) throws(ParleyError) {
        let offer = try MediaOffer(roomOffer: MediaOffer.parse(sdp), videoCodecs: MediaTransportServer.roomVideoCodecs)
        var names: Set<String> = []
        var counts: [RoomTrackKind: Int] = [:]
        tracks = []
        slots = [:]
        for section in offer.accepted {
            guard let mid = section.mid, let kind = RoomTrackKind(rawValue: section.mediaType) else { continue }
            if section.direction.receives { slots[kind, default: 0] += 1 }
            guard section.direction.sends else { continue }
            counts[kind, default: 0] += 1
            let base = "whip-\(kind.rawValue)"
            var name = offer.description.media[section.index].msids.first?.trackID ?? ""
            if name.isEmpty || name == "-" || name.utf8.count > 128 || names.contains(name) {
                name = counts[kind] == 1 ? base : "\(base)-\(counts[kind] ?? 0)"
                while names.contains(name) { name += "'" }
            }
            names.insert(name)
            tracks.append(RoomTrackInfo(mid: mid, name: name, kind: kind))
        }
    }
}

/// Which published tracks a WHEP viewer receives: a value fed the viewer's room messages that
/// says what to subscribe to and unsubscribe from. It fills each of its receive slots (by kind)
/// with an eligible track not yet received, in publication order, and takes the next when one is
/// unpublished or refused; tracks published later fill slots still empty.
package struct WHEPSelection: Equatable {
    package enum Choice: Equatable {
        /// The room's mixed audio (when the server mixes: `mixesAudio`, else its first published
        /// audio) and its first published video, which follows `room.dominantSpeaker`.
        case room
        /// The tracks of the participant with this identity.
        case participant(identity: String)
        /// These tracks (`MT…` SIDs), in this order of preference.
        case tracks([String])
    }

    struct Changes: Equatable {
        var unsubscribe: [String] = []
        var subscribe: [String] = []
    }

    private struct Published: Equatable {
        let sid: String
        let participant: String
        let kind: RoomTrackKind
    }

    let choice: Choice
    let slots: [RoomTrackKind: Int]
    /// The room's mix takes one audio slot (`RoomService.hearRoomMix`), so no track does.
    let mixesAudio: Bool
    /// The viewer's own participant SID, from `room.joined`.
    private(set) var participantSid: String?
    private var identities: [String: String] = [:]
    private var published: [Published] = []
    /// Tracks subscribed to (asked or confirmed), and tracks the room refused.
    private(set) var receiving: [String: RoomTrackKind] = [:]
    private var refused: Set<String> = []
    private var dominantSpeaker: String?

    init(choice: Choice, slots: [RoomTrackKind: Int], mixesAudio: Bool = false) {
        self.choice = choice
        self.slots = slots
        self.mixesAudio = mixesAudio && choice == .room && (slots[.audio] ?? 0) > 0
    }

    /// Takes one of the viewer's messages; returns what to change (nothing before `room.joined`).
    mutating func take(_ message: SignalingMessage) -> Changes {
        switch message {
        case .roomJoined(let joined):
            participantSid = joined.participant.sid
            joined.participants.forEach { learn($0) }
        case .roomParticipantConnected(let connected):
            learn(connected.participant)
        case .roomTrackPublished(let track):
            add(track.track, of: track.participantSid)
        case .roomTrackUnpublished(let track):
            drop { $0.sid == track.trackSid }
        case .roomParticipantDisconnected(let participant):
            drop { $0.participant == participant.participantSid }
        case .roomUnsubscribed(let track):
            receiving[track.trackSid] = nil
        case .roomSubscriptionFailed(let failure):
            receiving[failure.trackSid] = nil
            refused.insert(failure.trackSid)
        case .roomDominantSpeaker(let speaker):
            dominantSpeaker = speaker.participantSid
        default:
            return Changes()
        }
        return participantSid == nil ? Changes() : plan()
    }

    private mutating func learn(_ participant: RoomParticipantInfo) {
        identities[participant.sid] = participant.identity
        for track in participant.tracks { add(track, of: participant.sid) }
    }

    private mutating func add(_ track: RoomTrackInfo, of participant: String) {
        guard let sid = track.sid, track.kind != .data, !published.contains(where: { $0.sid == sid }) else { return }
        published.append(Published(sid: sid, participant: participant, kind: track.kind))
    }

    private mutating func drop(where gone: (Published) -> Bool) {
        for track in published where gone(track) { receiving[track.sid] = nil }
        published.removeAll(where: gone)
    }

    /// The eligible tracks of `kind`, best first.
    private func candidates(_ kind: RoomTrackKind) -> [Published] {
        let ofKind = published.filter { $0.kind == kind && !refused.contains($0.sid) && $0.participant != participantSid }
        switch choice {
        case .room:
            guard kind == .video, let speaker = dominantSpeaker else { return ofKind }
            return ofKind.filter { $0.participant == speaker } + ofKind.filter { $0.participant != speaker }
        case .participant(let identity):
            return ofKind.filter { identities[$0.participant] == identity }
        case .tracks(let sids):
            return sids.compactMap { sid in ofKind.first { $0.sid == sid } }
        }
    }

    private mutating func plan() -> Changes {
        var changes = Changes()
        for kind in [RoomTrackKind.audio, .video] {
            let count = (slots[kind] ?? 0) - (kind == .audio && mixesAudio ? 1 : 0)
            let ranked = candidates(kind).map(\.sid)
            var held = receiving.filter { $0.value == kind }.map(\.key).sorted()
            // Slots are sticky, but with every one taken video moves to the dominant speaker.
            if case .room = choice, kind == .video, dominantSpeaker != nil {
                let best = Set(ranked.prefix(count))
                for sid in ranked.prefix(count) where receiving[sid] == nil && held.count >= count {
                    guard let out = held.first(where: { !best.contains($0) }) else { break }
                    held.removeAll { $0 == out }
                    receiving[out] = nil
                    changes.unsubscribe.append(out)
                }
            }
            for sid in ranked where receiving[sid] == nil && held.count < count {
                held.append(sid)
                receiving[sid] = kind
                changes.subscribe.append(sid)
            }
        }
        return changes
    }
}

/// The owner of a WHIP or WHEP participant, for DELETE and revocation.
struct RoomResourceOwner: Sendable, Equatable {
    let kind: RoomWHIPEndpoint.Kind
    let accountSid: String
    let apiKeySid: String
    let roomSid: String
    let roomName: String
}

/// A WHIP or WHEP participant's link: it has no signaling connection, so its messages go nowhere,
/// except that a viewer's feed its `WHEPSelection`, whose changes become subscriptions. A removal
/// forgets its owner (the service closes the media session).
final class RoomResourceLink: RoomParticipantLink {
    private struct State {
        var participantSid: String?
        var selection: WHEPSelection?
    }

    let rooms: RoomService
    let owners: SessionOwners<RoomResourceOwner>
    private let state: Mutex<State>

    init(rooms: RoomService, owners: SessionOwners<RoomResourceOwner>, selection: WHEPSelection?) {
        self.rooms = rooms
        self.owners = owners
        state = Mutex(State(selection: selection))
    }

    func send(_ message: SignalingMessage, ref: String?) async {
        let (sid, changes) = state.withLock { s -> (String?, WHEPSelection.Changes) in
            if case .roomJoined(let joined) = message { s.participantSid = joined.participant.sid }
            guard var selection = s.selection else { return (s.participantSid, .init()) }
            let changes = selection.take(message)
            s.selection = selection
            return (s.participantSid, changes)
        }
        guard let sid else { return }
        for track in changes.unsubscribe { await rooms.unsubscribe(participantSid: sid, trackSid: track) }
        for track in changes.subscribe { await rooms.subscribe(participantSid: sid, trackSid: track) }
    }

    func removed(_ reason: ParleyError) async {
        guard let sid = state.withLock({ $0.participantSid }) else { return }
        owners.ended(sid)
    }
}
