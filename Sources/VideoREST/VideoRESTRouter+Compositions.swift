import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// Compositions: `/v1/Compositions` (POST creates; GET lists with `Status`, `RoomSid`,
/// `DateCreatedAfter`/`Before`, paging), `/v1/Compositions/{CJ}` (fetch, DELETE) and `…/Media`.
extension VideoRESTRouter {
    /// `rest` after `/v1/Compositions`: nothing (the list), `CJ…`, or `CJ…/Media`.
    func compositions(_ context: VideoContext, _ rest: [String]) async throws(RESTFailure) -> HTTPResponse {
        let path = context.request.path
        guard let sid = rest.first else {
            try Self.allow(context, "GET, POST")
            return context.method == "POST" ? try await createComposition(context) : try listCompositions(context)
        }
        guard rest.count == 1 || (rest.count == 2 && rest[1] == "Media") else { throw .notFound(path) }
        guard let composition = try storeCall({ () throws(StoreError) in try store.composition(sid: sid) }),
              composition.accountSid == context.account.sid else { throw .notFound(path) }
        if rest.count == 2 {
            try Self.allow(context, "GET")
            guard composition.status == .completed else { throw .notFound(path) }
            return VideoMediaLinks.redirect(mediaPath: path, base: context.base, authToken: context.account.authToken,
                                            now: wallClock())
        }
        try Self.allow(context, "GET, DELETE")
        guard context.method == "DELETE" else { return Self.json(VideoResourceJSON.composition(composition, base: context.base)) }
        guard composition.status != .enqueued, composition.status != .processing else {
            throw .invalidParameter("composition \(sid) is still \(composition.status.rawValue)")
        }
        var deleted = composition
        deleted.status = .deleted
        deleted.deletedAt = wallClock()
        deleted.updatedAt = wallClock()
        try storeCall { () throws(StoreError) in try store.updateComposition(deleted) }
        if let file = composition.filePath, unlink(file) != 0, errno != ENOENT {
            Log.warning(.platform, "composition \(sid): cannot remove \(file): errno \(errno)")
        }
        return .status(204)
    }

    private func listCompositions(_ context: VideoContext) throws(RESTFailure) -> HTTPResponse {
        let p = context.parameters
        var query = CompositionQuery(accountSid: context.account.sid)
        var filters: [(String, String)] = []
        if let text = p["Status"] {
            guard let status = CompositionStatus(rawValue: text) else { throw .invalidParameter("Status \(text) is invalid") }
            query.status = status
            filters.append(("Status", text))
        }
        if let room = p["RoomSid"] { query.roomSid = room; filters.append(("RoomSid", room)) }
        (query.createdAfter, query.createdBefore) = try Self.createdFilters(p, &filters)
        let paging = try VideoPaging(p)
        let all = try storeCall { () throws(StoreError) in try store.compositions(query) }
        return Self.json(paging.envelope(key: "compositions", all: all.map { VideoResourceJSON.composition($0, base: context.base) },
                                         url: "\(context.base)/v1/Compositions", filters: filters))
    }

    private func createComposition(_ context: VideoContext) async throws(RESTFailure) -> HTTPResponse {
        guard let compositions else { throw RESTFailure(status: 501, code: .restInternalServer, message: "Compositions are not available") }
        let request = try Self.compositionRequest(context.parameters, accountSid: context.account.sid)
        let room = try storeCall { () throws(StoreError) in try store.room(sid: request.roomSid) }
        guard let room, room.accountSid == context.account.sid else {
            throw Self.failure(.roomNotFound, "Room \(request.roomSid) not found")
        }
        guard room.status != .inProgress else { throw .invalidParameter("Room \(room.sid) is still in progress") }
        do {
            let created = try await compositions.createComposition(request)
            return Self.json(VideoResourceJSON.composition(created, base: context.base), status: 201)
        } catch {
            let status = error.code == .tooManyRequests ? 429 : 400
            throw RESTFailure(status: status, code: error.code, message: error.failureReason ?? error.code.text)
        }
    }

    /// `POST /v1/Compositions`' parameters, validated: a room, audio sources or a video layout,
    /// a resolution of even sides up to 1920x1080, `webm` or `mp4`.
    package static func compositionRequest(_ p: RESTParameters, accountSid: String) throws(RESTFailure) -> CompositionCreateRequest {
        guard let roomSid = p["RoomSid"], SID.isValid(roomSid, prefix: "RM") else {
            throw .invalidParameter("RoomSid must be a room SID")
        }
        var r = CompositionCreateRequest(accountSid: accountSid, roomSid: roomSid)
        for (name, keyPath) in [("AudioSources", \CompositionCreateRequest.audioSources),
                                ("AudioSourcesExcluded", \CompositionCreateRequest.audioSourcesExcluded)] {
            let names = p.values(name).filter { !$0.isEmpty }
            guard names.count <= VideoLayout.maxSources,
                  names.allSatisfy({ $0.utf8.count <= 256 && !$0.contains("\n") }) else {
                throw .invalidParameter("\(name) must be at most \(VideoLayout.maxSources) track names")
            }
            r[keyPath: keyPath] = names
        }
        if let text = p["VideoLayout"], !text.isEmpty, text != "{}" {
            guard VideoLayout.parse(text) != nil, let value = try? JSONValue.parse(Array(text.utf8), maxDepth: 4) else {
                throw .invalidParameter("VideoLayout is not a valid layout")
            }
            r.videoLayout = String(decoding: value.serialized(), as: UTF8.self)
        }
        guard !r.audioSources.isEmpty || !r.videoLayout.isEmpty else {
            throw .invalidParameter("A composition needs AudioSources or a VideoLayout")
        }
        if let text = p["Resolution"] {
            let sides = text.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
            guard sides.count == 2, let w = sides[0], let h = sides[1], (16...1920).contains(w), (16...1080).contains(h),
                  w % 2 == 0, h % 2 == 0 else {
                throw .invalidParameter("Resolution must be WIDTHxHEIGHT, even sides up to 1920x1080")
            }
            r.resolution = text
        }
        if let format = p["Format"] {
            guard ["webm", "mp4"].contains(format) else { throw .invalidParameter("Format must be webm or mp4") }
            r.format = format
        }
        r.trim = try bool(p, "Trim") ?? true
        (r.statusCallback, r.statusCallbackMethod) = try statusCallback(p, urlCode: .invalidParameter, methodCode: .invalidParameter)
        return r
    }
}
