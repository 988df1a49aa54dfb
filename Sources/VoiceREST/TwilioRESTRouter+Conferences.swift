import HTTPWire
import JSONWire
import ParleyStore
import PlatformCore

/// `Conferences.json` (filters `FriendlyName`, `Status`; paging), `Conferences/{CF}.json` (update:
/// `Status=completed`), `Conferences/{CF}/Participants.json` and
/// `Conferences/{CF}/Participants/{CA}.json` (update: `Muted`, `Hold`; delete: kick): the engine's
/// conferences (live ones, and the most recent ended ones this server process remembers;
/// conferences are not stored).
extension TwilioRESTRouter {
    private var directory: (any ConferenceDirectory)? { calls as? any ConferenceDirectory }

    func listConferences(_ context: Context) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let p = context.parameters
        let paging = try RESTPaging(p)
        let name = p["FriendlyName"].flatMap { $0.isEmpty ? nil : $0 }
        let status = p["Status"].flatMap { $0.isEmpty ? nil : $0 }
        if let status, !["init", "in-progress", "completed"].contains(status) {
            throw .invalidParameter("Status must be init, in-progress or completed, got \(status)")
        }
        let all = (await directory?.conferenceSummaries(accountSid: context.account.sid) ?? [])
            .filter { c in (name.map { c.friendlyName == $0 } ?? true) && (status.map { c.status == $0 } ?? true) }
        let page = paging.slice(all)
        var filters: [(String, String)] = []
        if let name { filters.append(("FriendlyName", name)) }
        if let status { filters.append(("Status", status)) }
        return Self.json(paging.envelope(key: "conferences", records: page.records.map(Self.conferenceJSON),
                                         hasMore: page.hasMore, path: context.path, filters: filters))
    }

    /// GET; POST `Status=completed` ends a live conference (reason `conference-ended-via-api`):
    /// every participant's `<Dial>` completes and its TwiML goes on. An ended one answers as it is.
    func conference(_ context: Context, sid: String) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        let all = await directory?.conferenceSummaries(accountSid: context.account.sid) ?? []
        guard let found = all.first(where: { $0.sid == sid }) else { throw .notFound(context.path) }
        guard context.method == "POST" else { return Self.json(Self.conferenceJSON(found)) }
        let p = context.parameters
        try Self.refuseUnsupported(p, ["AnnounceUrl"])
        guard let status = p["Status"], !status.isEmpty else { return Self.json(Self.conferenceJSON(found)) }
        guard status == "completed" else { throw .invalidParameter("Status must be completed, got \(status)") }
        guard let ended = await directory?.endConference(accountSid: context.account.sid, conferenceSid: sid) else {
            throw .notFound(context.path)
        }
        return Self.json(Self.conferenceJSON(ended))
    }

    func listParticipants(_ context: Context, conferenceSid: String) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let paging = try RESTPaging(context.parameters)
        let all = try await participants(context, conferenceSid: conferenceSid)
        let page = paging.slice(all)
        return Self.json(paging.envelope(key: "participants", records: page.records.map(Self.participantJSON),
                                         hasMore: page.hasMore, path: context.path, filters: []))
    }

    /// GET; POST `Muted`, `Hold` (true/false); DELETE removes the participant (kick): its
    /// `<Dial>` completes and its TwiML goes on. `HoldUrl` is not fetched: the built-in hold music plays.
    func participant(_ context: Context, conferenceSid: String, callSid: String) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST, DELETE")
        let all = try await participants(context, conferenceSid: conferenceSid)
        guard let found = all.first(where: { $0.callSid == callSid }) else { throw .notFound(context.path) }
        let account = context.account.sid
        switch context.method {
        case "POST":
            let p = context.parameters
            try Self.refuseUnsupported(p, ["AnnounceUrl", "CallSidToCoach"])
            if try Self.bool(p, "Coaching") == true { throw .invalidParameter("Coaching is not supported") }
            let muted = try Self.bool(p, "Muted"), hold = try Self.bool(p, "Hold")
            guard let updated = await directory?.updateParticipant(accountSid: account, conferenceSid: conferenceSid,
                                                                   callSid: callSid, muted: muted, hold: hold) else {
                throw .notFound(context.path)  // it left meanwhile
            }
            return Self.json(Self.participantJSON(updated))
        case "DELETE":
            guard await directory?.removeParticipant(accountSid: account, conferenceSid: conferenceSid, callSid: callSid) == true else {
                throw .notFound(context.path)
            }
            return .status(204)
        default:
            return Self.json(Self.participantJSON(found))
        }
    }

    /// `true` / `false` (any case); nil when absent or empty.
    static func bool(_ p: RESTParameters, _ name: String) throws(RESTFailure) -> Bool? {
        guard let text = p[name], !text.isEmpty else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw .invalidParameter("\(name) must be true or false, got \(text)")
        }
    }

    /// 20001 for parameters whose feature Parley does not have (rather than ignoring them).
    private static func refuseUnsupported(_ p: RESTParameters, _ names: [String]) throws(RESTFailure) {
        for name in names where !(p[name] ?? "").isEmpty {
            throw .invalidParameter("\(name) is not supported")
        }
    }

    private func participants(_ context: Context, conferenceSid: String) async throws(RESTFailure) -> [ConferenceParticipantSummary] {
        guard let all = await directory?.conferenceParticipants(accountSid: context.account.sid, conferenceSid: conferenceSid) else {
            throw .notFound(context.path)
        }
        return all
    }

    /// A conference in the vendor's shape.
    static func conferenceJSON(_ c: ConferenceSummary) -> JSONValue {
        let path = "\(RESTResourceJSON.accountPath(c.accountSid))/Conferences/\(c.sid)"
        return .object([
            "account_sid": .string(c.accountSid),
            "api_version": .string(RESTResourceJSON.apiVersion),
            "call_sid_ending_conference": c.endingCallSid.map(JSONValue.string) ?? .null,
            "date_created": .string(RESTTime.rfc2822(c.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(c.updatedAt)),
            "friendly_name": .string(c.friendlyName),
            "reason_conference_ended": c.endReason.map(JSONValue.string) ?? .null,
            "region": .string("us1"),
            "sid": .string(c.sid),
            "status": .string(c.status),
            "subresource_uris": .object([
                "participants": .string(path + "/Participants.json"),
                "recordings": .string(path + "/Recordings.json"),
            ]),
            "uri": .string(path + ".json"),
        ])
    }

    /// A participant in the vendor's shape.
    static func participantJSON(_ p: ConferenceParticipantSummary) -> JSONValue {
        let path = "\(RESTResourceJSON.accountPath(p.accountSid))/Conferences/\(p.conferenceSid)/Participants/\(p.callSid)"
        return .object([
            "account_sid": .string(p.accountSid),
            "call_sid": .string(p.callSid),
            "call_sid_to_coach": .null,
            "coaching": .bool(false),
            "conference_sid": .string(p.conferenceSid),
            "date_created": .string(RESTTime.rfc2822(p.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(p.createdAt)),
            "end_conference_on_exit": .bool(p.endConferenceOnExit),
            "hold": .bool(p.hold),
            "label": p.label.map(JSONValue.string) ?? .null,
            "muted": .bool(p.muted),
            "queue_time": .null,
            "start_conference_on_enter": .bool(p.startConferenceOnEnter),
            "status": .string(p.status),
            "uri": .string(path + ".json"),
        ])
    }
}
