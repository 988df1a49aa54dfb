import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

extension VideoRESTRouter {
    /// `GET /v1/Rooms` (`Status`, `UniqueName`, `DateCreatedAfter`, `DateCreatedBefore`, paging), `POST` creates.
    func rooms(_ context: VideoContext) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        let p = context.parameters
        if context.method == "POST" {
            let request = try Self.createRequest(p, accountSid: context.account.sid)
            do {
                let room = try await control.createRoom(request)
                return Self.json(VideoResourceJSON.room(room, base: context.base), status: 201)
            } catch {
                throw Self.failure(error.code, error.failureReason ?? error.code.text)
            }
        }
        var query = RoomQuery(accountSid: context.account.sid, limit: 1_000_000)
        var filters: [(String, String)] = []
        if let text = p["Status"] {
            guard let status = RoomStatus(rawValue: text) else { throw Self.failure(.roomStatusInvalid, "Status \(text) is invalid") }
            query.status = status
            filters.append(("Status", text))
        }
        if let name = p["UniqueName"] { query.uniqueName = name; filters.append(("UniqueName", name)) }
        (query.createdAfter, query.createdBefore) = try Self.createdFilters(p, &filters)
        let paging = try VideoPaging(p)
        let all = try storeCall { () throws(StoreError) in try store.rooms(query) }
        return Self.json(paging.envelope(key: "rooms", all: all.map { VideoResourceJSON.room($0, base: context.base) },
                                         url: context.base + Self.root, filters: filters))
    }

    /// `GET /v1/Rooms/{RM or UniqueName}`; `POST Status=completed` ends it (other statuses 53112).
    func room(_ context: VideoContext, name: String) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        let room = try findRoom(context, name)
        guard context.method == "POST" else { return Self.json(VideoResourceJSON.room(room, base: context.base)) }
        guard context.parameters["Status"] == RoomStatus.completed.rawValue else {
            throw Self.failure(.roomStatusInvalid, "Status must be completed")
        }
        if room.status != .inProgress { return Self.json(VideoResourceJSON.room(room, base: context.base)) }
        guard let ended = await control.completeRoom(sid: room.sid) else { throw .notFound(context.request.path) }
        return Self.json(VideoResourceJSON.room(ended, base: context.base))
    }

    /// `POST /v1/Rooms`'s parameters, validated with the vendor's codes.
    package static func createRequest(_ p: RESTParameters, accountSid: String) throws(RESTFailure) -> RoomCreateRequest {
        var r = RoomCreateRequest(accountSid: accountSid)
        if let name = p["UniqueName"] {
            guard name.utf8.count <= 128 else { throw failure(.roomNameTooLong, "UniqueName is longer than 128 bytes") }
            guard !name.isEmpty, !name.hasPrefix("RM"), !name.contains("/"),
                  !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw failure(.roomNameInvalid, "UniqueName \(name) is invalid")
            }
            r.uniqueName = name
        }
        if let text = p["Type"] {
            guard let type = RoomType(rawValue: text) else { throw failure(.roomTypeInvalid, "Type \(text) is invalid") }
            r.type = type
        }
        let maxAllowed = r.type.maxParticipants
        r.maxParticipants = maxAllowed
        if let text = p["MaxParticipants"] {
            guard let n = Int(text), n >= 1, n <= maxAllowed else {
                throw failure(.roomMaxParticipantsOutOfRange, "MaxParticipants must be 1–\(maxAllowed) for \(r.type.rawValue)")
            }
            r.maxParticipants = n
        }
        (r.statusCallback, r.statusCallbackMethod) = try statusCallback(p, urlCode: .roomStatusCallbackInvalid,
                                                                        methodCode: .roomStatusCallbackMethodInvalid)
        r.maxParticipantDuration = try int(p, "MaxParticipantDuration", 600...86_400, r.maxParticipantDuration)
        r.emptyRoomTimeout = try int(p, "EmptyRoomTimeout", 1...1440, r.emptyRoomTimeout)
        r.unusedRoomTimeout = try int(p, "UnusedRoomTimeout", 1...1440, r.unusedRoomTimeout)
        r.recordParticipantsOnConnect = try bool(p, "RecordParticipantsOnConnect") ?? false
        if let text = p["RecordingRules"], !text.isEmpty {
            guard let rules = RecordingRulesJSON.parse(text, wrapped: true) ?? RecordingRulesJSON.parse(text) else {
                throw failure(.roomInvalidRecordingRule, "RecordingRules are invalid")
            }
            r.recordingRules = rules
        }
        // Only group rooms' media passes through the server: peer-to-peer rooms cannot record.
        if !r.type.isRouted, r.recordParticipantsOnConnect || r.recordingRules != nil {
            throw failure(.roomInvalidParameters, "a \(r.type.rawValue) room cannot record")
        }
        r.audioOnly = try bool(p, "AudioOnly") ?? false
        let codecs = p.values("VideoCodecs").filter { !$0.isEmpty }
        if !codecs.isEmpty {
            guard codecs.allSatisfy({ $0 == "VP8" || $0 == "H264" }) else {
                throw failure(.roomInvalidParameters, "VideoCodecs must be VP8 or H264")
            }
            r.videoCodecs = codecs
        }
        return r
    }

    /// `StatusCallback` (an http(s) URL, or nil) and `StatusCallbackMethod` (GET or POST, POST by default).
    static func statusCallback(_ p: RESTParameters, urlCode: ParleyError.Code,
                               methodCode: ParleyError.Code) throws(RESTFailure) -> (String?, String) {
        var url: String?
        if let text = p["StatusCallback"], !text.isEmpty {
            let lower = text.lowercased()
            let scheme = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
            guard scheme > 0, text.utf8.count <= 4096, text.count > scheme, !text.contains(" ") else {
                throw failure(urlCode, "StatusCallback is not a valid http(s) URL")
            }
            url = text
        }
        guard let method = p["StatusCallbackMethod"] else { return (url, "POST") }
        guard ["GET", "POST"].contains(method.uppercased()) else {
            throw failure(methodCode, "StatusCallbackMethod must be GET or POST")
        }
        return (url, method.uppercased())
    }

    /// A timeout-like integer in `range` (53109 outside it).
    private static func int(_ p: RESTParameters, _ name: String, _ range: ClosedRange<Int>, _ fallback: Int) throws(RESTFailure) -> Int {
        guard let text = p[name] else { return fallback }
        guard let n = Int(text), range.contains(n) else {
            throw failure(.roomTimeoutOutOfRange, "\(name) must be \(range.lowerBound)–\(range.upperBound)")
        }
        return n
    }

    static func bool(_ p: RESTParameters, _ name: String) throws(RESTFailure) -> Bool? {
        guard let text = p[name] else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw .invalidParameter("\(name) must be true or false")
        }
    }
}
