import HTTPWire
import JSONWire
import ParleyServer
import ParleyStore
import PlatformCore
import SFU
import VideoREST

/// Feeds text to the Video REST bodies' own parsers: subscribe and recording rules (plain and
/// `{"rules": …}`), video layouts, track-name patterns, a form body read as a composition request,
/// a `POST /v1/Rooms` body, a participant update and its subscribe rules, and a WHEP query
/// (`?participant=`, `?tracks=`). What a parser accepts stays in its documented bounds. Rules that parse must render back to JSON that parses to the same rules; a layout's
/// regions are in drawing order; a pattern always matches itself with its `*` taken literally.
enum VideoRESTFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        for dialect in [TrackRulesJSON.subscribe, TrackRulesJSON.recording] {
            for wrapped in [false, true] {
                guard let rules = TrackRulesJSON.parse(text, dialect, wrapped: wrapped) else { continue }
                let again = String(decoding: TrackRulesJSON.json(rules).serialized(), as: UTF8.self)
                precondition(TrackRulesJSON.parse(again, dialect) == rules, "rules do not survive their JSON")
            }
        }
        if let layout = VideoLayout.parse(text) {
            precondition(layout.regions.count <= VideoLayout.maxRegions, "too many regions")
            precondition(zip(layout.regions, layout.regions.dropFirst()).allSatisfy { $0.z <= $1.z }, "regions out of order")
        }
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if lines.count == 2, lines[0].utf8.count <= 256, lines[1].utf8.count <= 4096 {
            _ = SourcePattern.matches(lines[0], lines[1])
            if !lines[0].contains("*") { precondition(SourcePattern.matches(lines[0], lines[0]), "a name does not match itself") }
        }
        if let pairs = try? FormURLEncoding.decode(data, limits: FormURLEncoding.Limits(maxBytes: 1 << 16, maxPairs: 256)) {
            let p = RESTParameters(pairs.map { (name: $0.0, value: $0.1) })
            _ = try? VideoRESTRouter.compositionRequest(p, accountSid: "AC")
            if let room = try? VideoRESTRouter.createRequest(p, accountSid: "AC") { checkRoom(room) }
            if let status = try? VideoRESTRouter.participantUpdate(p) { precondition(status == .disconnected, "only disconnected") }
            if let rules = p["Rules"] { _ = SubscribeRulesJSON.parse(rules) }
        }
        checkWHEP(HTTPRequest(method: "POST", target: "/v1/rooms/r/whep?" + text))
    }

    /// A room request within the vendor's limits (RoomControl's, docs/limits.md).
    static func checkRoom(_ r: RoomCreateRequest) {
        let most = switch r.type { case .go: 2; case .peerToPeer: 10; case .group, .groupSmall: 50 }
        precondition((1...most).contains(r.maxParticipants), "MaxParticipants out of range")
        precondition((600...86_400).contains(r.maxParticipantDuration), "MaxParticipantDuration out of range")
        precondition((1...1440).contains(r.emptyRoomTimeout) && (1...1440).contains(r.unusedRoomTimeout), "timeouts out of range")
        if let name = r.uniqueName { precondition(!name.isEmpty && name.utf8.count <= 128 && !name.hasPrefix("RM"), "bad UniqueName") }
        precondition(r.type.isRouted || (!r.recordParticipantsOnConnect && r.recordingRules == nil), "a P2P room records")
        precondition(r.videoCodecs.allSatisfy { $0 == "VP8" || $0 == "H264" } && ["GET", "POST"].contains(r.statusCallbackMethod))
    }

    /// A WHEP choice names a non-empty identity or non-empty, trimmed track SIDs.
    static func checkWHEP(_ request: HTTPRequest) {
        switch WHEPSelection.Choice(query: request) {
        case .room: break
        case .participant(let identity): precondition(!identity.isEmpty, "an empty identity")
        case .tracks(let sids):
            precondition(!sids.isEmpty && sids.allSatisfy { !$0.isEmpty && !$0.contains(",") && $0.first != " " && $0.last != " " },
                         "bad track SIDs: \(sids)")
        }
    }
}
