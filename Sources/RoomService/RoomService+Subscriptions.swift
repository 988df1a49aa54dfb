import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import Signaling
import VideoREST

/// Subscriptions of participants with media: which remote tracks fill which receive slots. What
/// a participant receives is what its subscribe rules allow (`subscriptions(of:)`) and it chose
/// (everything with automatic subscription, less what it unsubscribed; else what it subscribed
/// to), among tracks that arrive in a section of a live session.
extension RoomService {
    /// Subscribes the participant to a remote track (`room.subscribe`): `room.subscribed` (with
    /// `ref`) once a slot carries it, a `room.renegotiate` first if none is free, or
    /// `room.subscriptionFailed` (53300) when no such track may be received, 53305 when the
    /// participant receives `maxSubscriptionsPerParticipant` tracks already.
    public func subscribe(participantSid: String, trackSid: String, ref: String? = nil) {
        if refusedPeerSubscription(participantSid, trackSid: trackSid, ref: ref) { return }
        if let live = participants[participantSid], !live.permissions.canSubscribe {
            live.post(.roomSubscriptionFailed(RoomSubscriptionFailed(
                trackSid: trackSid, code: ParleyError.Code.accessTokenGrantsInvalid.rawValue,
                message: "the token's video grant does not allow subscribing")), ref: ref)
            return
        }
        guard var session = participants[participantSid]?.session else { return }
        if session.automaticSubscription { session.exceptions.remove(trackSid) } else { session.exceptions.insert(trackSid) }
        participants[participantSid]?.session = session
        let plan = reconcile(participantSid, tell: false)
        guard let live = participants[participantSid] else { return }
        deliver(plan, to: participantSid, ref: ref, about: trackSid)
        if !plan.filled.contains(where: { $0.trackSid == trackSid }), let slot = live.session?.slot(carrying: trackSid) {
            live.post(.roomSubscribed(RoomSubscribed(trackSid: trackSid, mid: slot.mid, participantSid: publisher(of: trackSid))),
                      ref: ref)
        } else if plan.capped.contains(trackSid) {
            live.post(.roomSubscriptionFailed(RoomSubscriptionFailed(
                trackSid: trackSid, code: ParleyError.Code.trackServerTrackCapacityReached.rawValue,
                message: "at most \(configuration.maxSubscriptionsPerParticipant) subscriptions")), ref: ref)
        } else if live.session?.slot(carrying: trackSid) == nil, !plan.pending.contains(trackSid) {
            live.post(.roomSubscriptionFailed(RoomSubscriptionFailed(
                trackSid: trackSid, code: ParleyError.Code.trackInvalid.rawValue,
                message: "no track \(trackSid) this participant may receive")), ref: ref)
        }
    }

    /// Stops receiving a remote track (`room.unsubscribe`): its slot is emptied and freed, and
    /// `room.unsubscribed` (with `ref`) is posted.
    public func unsubscribe(participantSid: String, trackSid: String, ref: String? = nil) {
        if refusedPeerSubscription(participantSid, trackSid: trackSid, ref: ref) { return }
        guard var session = participants[participantSid]?.session else { return }
        if session.automaticSubscription { session.exceptions.insert(trackSid) } else { session.exceptions.remove(trackSid) }
        participants[participantSid]?.session = session
        let plan = reconcile(participantSid, tell: false)
        deliver(plan, to: participantSid, ref: ref, about: trackSid)
        if !plan.emptied.contains(where: { $0.trackSid == trackSid }) {
            participants[participantSid]?.post(.roomUnsubscribed(RoomTrackReference(trackSid: trackSid)), ref: ref)
        }
    }

    /// Brings a participant's slots in line with what it should receive: slots of tracks it no
    /// longer receives are emptied, free slots take waiting tracks (routed at once), and the
    /// slots still missing are asked for. With `tell`, the participant hears of it.
    @discardableResult
    func reconcile(_ participantSid: String, tell: Bool = true) -> RoomSession.Plan {
        guard var session = participants[participantSid]?.session else { return RoomSession.Plan() }
        var waiting: [String] = []  // data tracks whose channel is not open yet
        let wanted = subscriptions(of: participantSid).compactMap { track -> RoomSession.Wanted? in
            guard session.chose(track.trackSid) else { return nil }
            let sourced = track.kind == .data ? dataSource(of: track.trackSid) != nil : source(of: track.trackSid) != nil
            if !sourced, track.kind == .data, session.application != nil { waiting.append(track.trackSid) }
            return sourced ? RoomSession.Wanted(trackSid: track.trackSid, kind: track.kind) : nil
        }
        // Beyond the cap, tracks wait (publication order) for a subscription to end.
        let cap = configuration.maxSubscriptionsPerParticipant
        var plan = session.plan(Array(wanted.prefix(cap)))
        plan.capped = wanted.dropFirst(cap).map(\.trackSid)
        plan.pending += waiting
        participants[participantSid]?.session = session
        for slot in plan.emptied { route(slot, carrying: nil, session: session.id, priority: .standard) }
        for slot in plan.filled {
            route(slot, carrying: slot.trackSid, session: session.id,
                  priority: slot.trackSid.map { slotPriority(of: $0, for: participantSid) } ?? .standard)
        }
        if tell { deliver(plan, to: participantSid) }
        return plan
    }

    /// Posts what a plan changed: `room.unsubscribed`, `room.subscribed`, `room.renegotiate`;
    /// the message about `about` carries `ref`.
    func deliver(_ plan: RoomSession.Plan, to participantSid: String, ref: String? = nil, about: String? = nil) {
        guard let live = participants[participantSid] else { return }
        for slot in plan.emptied {
            guard let sid = slot.trackSid else { continue }
            live.post(.roomUnsubscribed(RoomTrackReference(trackSid: sid)), ref: sid == about ? ref : nil)
        }
        for slot in plan.filled {
            guard let sid = slot.trackSid else { continue }
            live.post(.roomSubscribed(RoomSubscribed(trackSid: sid, mid: slot.mid, participantSid: publisher(of: sid))),
                      ref: sid == about ? ref : nil)
        }
        if let request = plan.renegotiate { live.post(.roomRenegotiate(request)) }
    }

    /// Each receive slot that carries a track, in offer order.
    func subscriptionMap(of participantSid: String) -> [RoomSubscription] {
        guard let session = participants[participantSid]?.session else { return [] }
        return (session.slots + session.dataSlots).compactMap { slot in
            slot.trackSid.map { RoomSubscription(mid: slot.mid, trackSid: $0, participantSid: publisher(of: $0)) }
        }
    }

    /// Where a published track arrives: its section on its publisher's session.
    func source(of trackSid: String) -> RoomTrackAddress? {
        guard let track = tracks[trackSid], let mid = track.mid,
              let session = participants[track.record.participantSid]?.session else { return nil }
        return RoomTrackAddress(session: session.id, mid: mid)
    }

    func publisher(of trackSid: String) -> String { tracks[trackSid]?.record.participantSid ?? "" }

    /// Tells the media plane, after the routes decided before, to send `source` in `slot` with
    /// `priority` in its subscriber's allocation.
    func route(_ source: RoomTrackAddress?, to slot: RoomTrackAddress, priority: TrackPriority = .standard) {
        guard let media else { return }
        mediaWork.post {
            if !(await media.route(source, to: slot, priority: priority)) {
                Log.warning(.platform, "room media: no route from \(source.map { "\($0.session)/\($0.mid)" } ?? "nothing") to \(slot.session)/\(slot.mid)")
            }
        }
    }
}
