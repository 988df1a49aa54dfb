import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore
import SFU

/// Recordings: `/v1/Recordings` (list with `Status`, `SourceSid`, `GroupingSid`, `MediaType`,
/// `DateCreatedAfter`/`Before`, paging), `/v1/Recordings/{RT}` (fetch, DELETE), `…/Media`; the
/// same under `/v1/Rooms/{RM}/Recordings`; and `/v1/Rooms/{RM}/RecordingRules` (GET, POST `Rules`).
extension VideoRESTRouter {
    /// `/v1/Recordings…` and `/v1/Compositions…`.
    func recordingsOrCompositions(_ request: HTTPRequest) async throws(RESTFailure) -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, !parts.dropFirst().contains("") else { throw .notFound(request.path) }
        let account = try authenticate(request)
        let context = VideoContext(request: request, parameters: try RESTParameters(request), account: account,
                                   base: publicBaseURL())
        let rest = Array(parts.dropFirst(3))
        if parts[2] == "Recordings" { return try recordings(context, room: nil, rest) }
        return try await compositions(context, rest)
    }

    /// `rest` after `…/Recordings`: nothing (the list), `RT…`, or `RT…/Media`.
    func roomRecordings(_ context: VideoContext, room: RoomRecord, _ rest: [String]) throws(RESTFailure) -> HTTPResponse {
        try recordings(context, room: room, rest)
    }

    private func recordings(_ context: VideoContext, room: RoomRecord?, _ rest: [String]) throws(RESTFailure) -> HTTPResponse {
        let path = context.request.path
        guard let sid = rest.first else { return try listRecordings(context, room: room) }
        guard rest.count == 1 || (rest.count == 2 && rest[1] == "Media") else { throw .notFound(path) }
        guard let recording = try storeCall({ () throws(StoreError) in try store.roomRecording(sid: sid) }),
              recording.accountSid == context.account.sid, room.map({ $0.sid == recording.roomSid }) ?? true else {
            throw .notFound(path)
        }
        if rest.count == 2 {
            try Self.allow(context, "GET")
            guard recording.status == .completed else { throw .notFound(path) }
            return VideoMediaLinks.redirect(mediaPath: path, base: context.base, authToken: context.account.authToken,
                                            now: wallClock())
        }
        try Self.allow(context, "GET, DELETE")
        if context.method == "DELETE" {
            guard recording.status != .processing else {
                throw .invalidParameter("recording \(sid) is still processing")
            }
            var deleted = recording
            deleted.status = .deleted
            deleted.updatedAt = wallClock()
            try storeCall { () throws(StoreError) in try store.updateRoomRecording(deleted) }
            if unlink(recording.filePath) != 0, errno != ENOENT {
                Log.warning(.platform, "recording \(sid): cannot remove \(recording.filePath): errno \(errno)")
            }
            return .status(204)
        }
        return Self.json(try recordingJSON(recording, context: context, underRoom: room != nil))
    }

    private func listRecordings(_ context: VideoContext, room: RoomRecord?) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let p = context.parameters
        var query = RoomRecordingQuery(accountSid: context.account.sid, roomSid: room?.sid)
        var filters: [(String, String)] = []
        if let text = p["Status"] {
            guard let status = RoomRecordingStatus(rawValue: text) else { throw .invalidParameter("Status \(text) is invalid") }
            query.status = status
            filters.append(("Status", text))
        }
        if let sid = p["SourceSid"] { query.sourceSid = sid; filters.append(("SourceSid", sid)) }
        if room == nil {
            query.groupingSids = p.values("GroupingSid").filter { !$0.isEmpty }
            filters += query.groupingSids.map { ("GroupingSid", $0) }
            if let text = p["MediaType"] {
                guard let kind = TrackKind(rawValue: text), kind != .data else { throw .invalidParameter("MediaType \(text) is invalid") }
                query.kind = kind
                filters.append(("MediaType", text))
            }
        }
        (query.createdAfter, query.createdBefore) = try Self.createdFilters(p, &filters)
        let paging = try VideoPaging(p)
        let all = try storeCall { () throws(StoreError) in try store.roomRecordings(query) }
        let url = room.map { "\(context.base)\(Self.root)/\($0.sid)/Recordings" } ?? "\(context.base)/v1/Recordings"
        var items: [JSONValue] = []
        for recording in all { items.append(try recordingJSON(recording, context: context, underRoom: room != nil)) }
        return Self.json(paging.envelope(key: "recordings", all: items, url: url, filters: filters))
    }

    /// A recording's JSON; `/v1/Recordings` shows its room's status callback.
    private func recordingJSON(_ r: RoomRecordingRecord, context: VideoContext, underRoom: Bool) throws(RESTFailure) -> JSONValue {
        let room = underRoom ? nil : try storeCall { () throws(StoreError) in try store.room(sid: r.roomSid) }
        return VideoResourceJSON.recording(r, base: context.base, underRoom: underRoom, statusCallback: room?.statusCallback,
                                           statusCallbackMethod: room?.statusCallbackMethod ?? "POST")
    }

    /// `GET …/RecordingRules`; `POST Rules=[…]` replaces them on an in-progress room (bad rules: 53120).
    func recordingRules(_ context: VideoContext, room: RoomRecord) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        var rules: RecordingRules?
        if context.method == "POST" {
            guard let text = context.parameters["Rules"], let parsed = RecordingRulesJSON.parse(text) else {
                throw Self.failure(.roomInvalidRecordingRule, "The recording rules are invalid")
            }
            guard room.status == .inProgress else { throw Self.failure(.roomCompleted, "Room \(room.sid) is not in progress") }
            rules = await control.updateRecordingRules(roomSid: room.sid, parsed)
            guard rules != nil else { throw Self.failure(.roomCompleted, "Room \(room.sid) is not in progress") }
        } else if room.status == .inProgress {
            rules = await control.recordingRules(roomSid: room.sid)
        }
        let stored = try storeCall { () throws(StoreError) in try store.recordingRules(roomSid: room.sid) }
        let shown = rules ?? stored.flatMap { RecordingRulesJSON.parse($0.rules) }
            ?? (room.recordParticipantsOnConnect ? .recordAll : .recordNone)
        return Self.json(.object([
            "room_sid": .string(room.sid), "rules": RecordingRulesJSON.json(shown),
            "date_created": VideoResourceJSON.date(stored?.createdAt ?? room.createdAt),
            "date_updated": VideoResourceJSON.date(stored?.updatedAt ?? room.updatedAt),
        ]))
    }

    /// `…/Media/Content?Expires&Signature`: the bytes of a completed recording or composition.
    func signedContent(_ request: HTTPRequest) throws(RESTFailure) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let sid = parts[2]
        let found: (accountSid: String, path: String, type: String)?
        if parts[1] == "Recordings" {
            found = try storeCall { () throws(StoreError) in try store.roomRecording(sid: sid) }
                .flatMap { $0.status == .completed ? ($0.accountSid, $0.filePath,
                                                      VideoMediaLinks.contentType(container: $0.container, audioOnly: $0.kind == .audio)) : nil }
        } else {
            found = try storeCall { () throws(StoreError) in try store.composition(sid: sid) }.flatMap { c in
                guard c.status == .completed, let path = c.filePath else { return nil }
                return (c.accountSid, path, VideoMediaLinks.contentType(container: c.format, audioOnly: c.videoLayout.isEmpty))
            }
        }
        guard let found, let account = try storeCall({ () throws(StoreError) in try store.account(sid: found.accountSid) }),
              VideoMediaLinks.verify(request, authToken: account.authToken, now: wallClock()) else {
            throw .notFound(request.path)
        }
        try Self.allow(VideoContext(request: request, parameters: RESTParameters([]), account: account, base: ""), "GET")
        guard let response = VideoMediaLinks.file(found.path, contentType: found.type) else {
            Log.warning(.platform, "\(sid): the media file \(found.path) is missing or too large to serve")
            throw .notFound(request.path)
        }
        return response
    }
}
