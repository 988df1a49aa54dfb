import ParleyStore
import Signaling

/// One participant's media session as its room sees it: the sections it sends in, its receive
/// slots (the recvonly sections of its offer) and the remote track each carries, what it chose
/// to receive, and the slots it was asked to add. A value: `plan` decides, the service routes.
struct RoomSession {
    let id: String
    /// A receive slot, by `a=mid`, in offer order.
    struct Slot: Equatable {
        let mid: String
        let kind: TrackKind
        var trackSid: String?
        /// The negotiated codec's rtpmap name, when the media plane said.
        var codec: String?
        /// It carries the room's mixed audio (`RoomService+Mix`), no track.
        var mixed = false

        init(mid: String, kind: TrackKind, trackSid: String? = nil, codec: String? = nil) {
            self.mid = mid
            self.kind = kind
            self.trackSid = trackSid
            self.codec = codec
        }
    }

    /// A remote track the participant should receive.
    struct Wanted: Equatable {
        let trackSid: String
        let kind: TrackKind
    }

    /// What `plan` changed.
    struct Plan: Equatable {
        /// Slots whose track is no longer wanted (their old track), now free.
        var emptied: [Slot] = []
        /// Slots that now carry a track.
        var filled: [Slot] = []
        /// Wanted tracks that found no slot.
        var pending: [String] = []
        /// More slots to ask for, when some wanted tracks found none.
        var renegotiate: RoomRenegotiate?
        /// Tracks it would receive but for `maxSubscriptionsPerParticipant`.
        var capped: [String] = []
    }

    private(set) var slots: [Slot]
    /// The sections it sends in (its published tracks' candidates), by mid.
    private(set) var sending: [String: TrackKind]
    let automaticSubscription: Bool
    /// With automatic subscription the tracks it unsubscribed from; without, those it subscribed to.
    var exceptions: Set<String> = []
    /// Slots asked for with `room.renegotiate` and not offered yet, by kind.
    var asked: [TrackKind: Int] = [:]
    /// Data tracks (`RoomSession+Data.swift`): the data channel section's mid, if the offer had
    /// one; the data tracks it receives, one channel each (a slot of kind `data` in that
    /// section); the labels of the data channels it opened (its data tracks' sources).
    var application: String?
    var dataSlots: [Slot] = []
    var dataLabels: Set<String> = []

    init(_ description: RoomMediaDescription, automaticSubscription: Bool) {
        id = description.session
        slots = description.receiving.map { Slot(mid: $0.mid, kind: $0.kind, codec: $0.codec) }
        sending = Dictionary(description.sending.map { ($0.mid, $0.kind) }, uniquingKeysWith: { first, _ in first })
        self.automaticSubscription = automaticSubscription
        application = description.application
    }

    /// Whether the participant chose to receive `trackSid` (its subscribe rules aside).
    func chose(_ trackSid: String) -> Bool { automaticSubscription != exceptions.contains(trackSid) }

    /// The slot carrying `trackSid`.
    func slot(carrying trackSid: String) -> Slot? {
        slots.first { $0.trackSid == trackSid } ?? dataSlots.first { $0.trackSid == trackSid }
    }

    /// Takes a re-offer's sections: slots that stay keep their track, new ones are free, and the
    /// ones gone are returned (with what they carried), as are the sending mids gone. The slots
    /// asked for are considered offered.
    mutating func apply(_ description: RoomMediaDescription) -> (slots: [Slot], sending: [String]) {
        let old = Dictionary(slots.map { ($0.mid, $0) }, uniquingKeysWith: { first, _ in first })
        let kept = Set(description.receiving.map(\.mid))
        let goneSlots = slots.filter { !kept.contains($0.mid) }
        slots = description.receiving.map { section in
            if let slot = old[section.mid], slot.kind == section.kind { slot } else {
                Slot(mid: section.mid, kind: section.kind, codec: section.codec)
            }
        }
        let newSending = Dictionary(description.sending.map { ($0.mid, $0.kind) }, uniquingKeysWith: { first, _ in first })
        let goneSending = sending.keys.filter { newSending[$0] == nil }.sorted()
        sending = newSending
        asked = [:]
        return (goneSlots + applyData(description.application), goneSending)
    }

    /// Makes the first free audio slot the one carrying the room's mix; nil when none is free.
    mutating func takeMixSlot() -> Slot? {
        if let slot = slots.first(where: \.mixed) { return slot }
        guard let index = slots.firstIndex(where: { $0.kind == .audio && $0.trackSid == nil }) else { return nil }
        slots[index].mixed = true
        return slots[index]
    }

    /// Empties the slot carrying `trackSid` (its track is gone); the slot, if one carried it.
    mutating func empty(carrying trackSid: String) -> Slot? {
        if let index = dataSlots.firstIndex(where: { $0.trackSid == trackSid }) { return dataSlots.remove(at: index) }
        guard let index = slots.firstIndex(where: { $0.trackSid == trackSid }) else { return nil }
        let slot = slots[index]
        slots[index].trackSid = nil
        return slot
    }

    /// Frees the slots carrying tracks not in `wanted`, puts the wanted tracks that have no slot
    /// into free slots of their kind (in offer order, `wanted`'s order first), and asks for as
    /// many more slots as are still missing beyond those already asked for.
    mutating func plan(_ wanted: [Wanted]) -> Plan {
        var plan = Plan()
        planData(wanted.filter { $0.kind == .data }.map(\.trackSid), into: &plan)
        let wanted = wanted.filter { $0.kind != .data }
        let wantedSids = Set(wanted.map(\.trackSid))
        for index in slots.indices {
            if let sid = slots[index].trackSid, !wantedSids.contains(sid) {
                plan.emptied.append(slots[index])
                slots[index].trackSid = nil
            }
        }
        let carried = Set(slots.compactMap(\.trackSid))
        var missing: [TrackKind: Int] = [:]
        for track in wanted where !carried.contains(track.trackSid) {
            if let index = slots.firstIndex(where: { $0.trackSid == nil && !$0.mixed && $0.kind == track.kind }) {
                slots[index].trackSid = track.trackSid
                plan.filled.append(slots[index])
            } else {
                plan.pending.append(track.trackSid)
                missing[track.kind, default: 0] += 1
            }
        }
        let audio = max(0, (missing[.audio] ?? 0) - (asked[.audio] ?? 0))
        let video = max(0, (missing[.video] ?? 0) - (asked[.video] ?? 0))
        if audio > 0 || video > 0 {
            let request = RoomRenegotiate(audio: min(audio, RoomProtocol.maxSlots), video: min(video, RoomProtocol.maxSlots))
            asked[.audio, default: 0] += request.audio
            asked[.video, default: 0] += request.video
            plan.renegotiate = request
        }
        return plan
    }
}
