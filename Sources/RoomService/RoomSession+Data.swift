import ParleyStore

/// Data tracks of a participant's session: each data track it receives is a data channel the
/// media plane opens toward it in its data channel section (labelled with the track's SID), so
/// any number fit; one without a data channel section receives none (and is not asked for one).
extension RoomSession {
    /// Ends the data subscriptions of tracks not in `wanted` and starts those of the wanted ones
    /// it does not have yet (none without a data channel section).
    mutating func planData(_ wanted: [String], into plan: inout Plan) {
        let wantedSids = Set(wanted)
        plan.emptied += dataSlots.filter { !wantedSids.contains($0.trackSid ?? "") }
        dataSlots.removeAll { !wantedSids.contains($0.trackSid ?? "") }
        guard let application else { return }
        let carried = Set(dataSlots.compactMap(\.trackSid))
        for sid in wanted where !carried.contains(sid) {
            let slot = Slot(mid: application, kind: .data, trackSid: sid)
            dataSlots.append(slot)
            plan.filled.append(slot)
        }
    }

    /// A re-offer's data channel section: kept, its subscriptions stay; gone (or none), they end
    /// and are returned.
    mutating func applyData(_ newApplication: String?) -> [Slot] {
        defer { application = newApplication }
        guard newApplication == nil else { return [] }
        let gone = dataSlots
        dataSlots = []
        return gone
    }
}
