import Foundation
import HTTPWire

extension WHEPSelection.Choice {
    /// What a viewer asked to receive: `?participant=IDENTITY` or `?tracks=MT…,MT…` (empty SIDs
    /// and spaces around them dropped), else the room's first tracks. Pure: fuzzed (`video-rest`).
    package init(query request: HTTPRequest) {
        if let identity = request.queryValue("participant"), !identity.isEmpty {
            self = .participant(identity: identity)
            return
        }
        if let list = request.queryValue("tracks") {
            let sids = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if !sids.isEmpty {
                self = .tracks(sids)
                return
            }
        }
        self = .room
    }
}
