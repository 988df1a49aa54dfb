import AccessToken
import Foundation
import HTTPWire
import ParleyCore
import ParleyStore
import PlatformCore
import RoomService
import Signaling

/// WHIP (RFC 9725) and WHEP in front of the video rooms: an HTTP client joins a room as a
/// participant with one SDP offer/answer exchange, and leaves with DELETE.
///
/// - `POST /v1/rooms/{RoomNameOrSid}/whip`: `Authorization: Bearer <JWT>` (a video grant; one that
///   names a room must name this one), body `application/sdp`. The token's identity joins the
///   room (created ad hoc if none is in progress) publishing every sending section of the offer
///   as a track (see `RoomResourceOffer`), receiving nothing → `201 Created`,
///   `Content-Type: application/sdp`, `Location: /v1/rooms/{room}/whip/{PA…}`, `ETag`.
/// - `POST /v1/rooms/{room}/whep[?participant=IDENTITY | ?tracks=MT…,MT…]`: the offer's recvonly
///   sections are filled with the room's tracks (`WHEPSelection`: by default the room's mixed
///   audio in the first audio section and the first published video, following the dominant
///   speaker; tracks published later fill empty slots); it publishes nothing → 201 as above with
///   `/whep/{PA…}`.
/// - `DELETE` on the resource: the participant leaves → 200; 404 when unknown, gone or another
///   account's.
/// - `PATCH` on the resource (trickle ICE, ICE restart) → 405: the server is ICE-lite and puts all
///   its candidates in the answer (RFC 9725 §4.3: a server without trickle ICE or ICE restarts answers 405).
/// - `OPTIONS` on both: CORS preflight → 204, no auth.
///
/// Errors use the JSON error body: 401 for tokens, 403 with 20106 for a grant that does not cover
/// the room, 415 for a body that is not SDP, 400 with 53403/53404 for unusable offers, 404 with
/// 53106 for a room SID not in progress, 409 with 53105 for a full room, 400 with 53114 for a
/// peer-to-peer or go room (no media through the server), 503 with 53401 when the media server is full.
struct RoomWHIPEndpoint: APIEndpoint {
    enum Kind: String, Sendable { case whip, whep }

    /// A request's place under `/v1/rooms/`.
    struct Route: Equatable {
        /// The room's name or SID as in the path, and percent-decoded.
        var rawRoom: String
        var room: String
        var kind: Kind
        var participantSid: String?
    }

    /// Finds the service that holds a request's room.
    let roomRouter: any RoomRouter
    /// Each WHIP or WHEP participant takes a unit of its identity's media-session quota while it is in.
    var quotas: QuotaLedger?
    let owners = SessionOwners<RoomResourceOwner>()
    static let prefix = "/v1/rooms/"
    static let preflightMethods = "POST, DELETE, PATCH, OPTIONS"

    static func route(_ path: String) -> Route? {
        guard path.hasPrefix(prefix) else { return nil }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, parts.last?.isEmpty == false,
              let kind = Kind(rawValue: parts[1]), let room = parts[0].removingPercentEncoding else { return nil }
        return Route(rawRoom: parts[0], room: room, kind: kind, participantSid: parts.count == 3 ? parts[2] : nil)
    }

    func matches(_ path: String) -> Bool { Self.route(path) != nil }

    /// POST and DELETE need a valid access token; OPTIONS and PATCH are answered without one.
    func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? {
        head.method == "POST" || head.method == "DELETE" ? router.tokenRefusal(head) : nil
    }

    func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        guard let route = Self.route(request.path) else {
            return APIErrorResponse.make(ParleyError(.notFound, reason: "no resource at \(request.path)"), status: 404)
        }
        let allow = route.participantSid == nil ? "POST, OPTIONS" : "DELETE, OPTIONS"
        let response: HTTPResponse = switch (request.method, route.participantSid) {
        case ("OPTIONS", _): WHIPHTTP.preflight(methods: Self.preflightMethods, allow: allow)
        case ("POST", nil): await create(route, request: request, router: router)
        case ("DELETE", let sid?): await delete(sid, route: route, request: request, router: router)
        default: WHIPHTTP.methodNotAllowed(request.method, allow: allow)
        }
        return WHIPHTTP.cors(response, for: request)
    }

    private func create(_ route: Route, request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken, sdp: String
        switch WHIPHTTP.offer(request, router: router) {
        case .success(let accepted): (token, sdp) = accepted
        case .failure(let refusal): return refusal.response
        }
        guard let grant = token.video else {
            return APIErrorResponse.make(ParleyError(.accessTokenGrantsInvalid, reason: "the access token has no video grant"),
                                         status: 403)
        }
        let rooms: RoomService
        do { rooms = try await roomRouter.service(accountSid: token.accountSid, room: route.room) } catch {
            return APIErrorResponse.make(error, status: Self.status(for: error))
        }
        if let granted = grant.room, await !rooms.sameRoom(accountSid: token.accountSid, granted, route.room) {
            return APIErrorResponse.make(ParleyError(
                .accessTokenGrantsInvalid, reason: "the access token's video grant is for another room"), status: 403)
        }
        // WHIP publishes and WHEP subscribes: the token's finer grants must allow it.
        if route.kind == .whip ? grant.canPublish == false : grant.canSubscribe == false {
            return APIErrorResponse.make(ParleyError(.accessTokenGrantsInvalid, reason: route.kind == .whip
                ? "the access token's video grant does not allow publishing" : "the access token's video grant does not allow subscribing"),
                status: 403)
        }
        let offer: RoomResourceOffer
        do throws(ParleyError) {
            offer = try RoomResourceOffer(sdp: sdp)
            try Self.check(offer, for: route.kind)
        } catch {
            return WHIPHTTP.mediaRefusal(error)
        }
        let selection: WHEPSelection? = switch route.kind {
        case .whip: nil
        case .whep: WHEPSelection(choice: Self.choice(request), slots: offer.slots, mixesAudio: rooms.mixesAudio)
        }
        await prune()
        let link = RoomResourceLink(rooms: rooms, owners: owners, selection: selection)
        var lease: QuotaLease?
        do {
            lease = try quotas?.acquire(.mediaSession, for: QuotaOwner(token))
            let joined = try await rooms.connect(accountSid: token.accountSid, identity: token.identity, room: route.room,
                                                 offer: sdp, tracks: route.kind == .whip ? offer.tracks : [],
                                                 automaticSubscription: false, permissions: RoomPermissions(grant), link: link)
            let sid = joined.participant.sid
            if let lease { await rooms.hold(lease, for: sid) }
            if selection?.mixesAudio == true { await rooms.hearRoomMix(participantSid: sid) }
            owners.started(sid, owner: RoomResourceOwner(kind: route.kind, accountSid: token.accountSid,
                                                         apiKeySid: token.apiKeySid, roomSid: joined.room.sid,
                                                         roomName: joined.room.name))
            Log.info(.platform, "room \(joined.room.sid): \(route.kind.rawValue) participant \(sid) (\(token.identity))")
            return WHIPHTTP.created(answer: joined.answer ?? "", location: "\(Self.prefix)\(route.rawRoom)/\(route.kind.rawValue)/\(sid)",
                                    etag: sid)
        } catch {
            lease?.release()
            return APIErrorResponse.make(error, status: Self.status(for: error))
        }
    }

    private func delete(_ sid: String, route: Route, request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken
        switch WHIPHTTP.token(request, router: router) {
        case .success(let verified): token = verified
        case .failure(let refusal): return refusal.response
        }
        // Another account's participant is as unknown as one that never existed.
        guard let owner = owners.owner(of: sid), owner.accountSid == token.accountSid, owner.kind == route.kind,
              route.room == owner.roomName || route.room == owner.roomSid,
              let rooms = try? await roomRouter.service(accountSid: owner.accountSid, room: owner.roomSid),
              await rooms.connectedParticipants(roomSid: owner.roomSid).contains(where: { $0.sid == sid }) else {
            return APIErrorResponse.make(ParleyError(.participantNotFound, reason: "no \(route.kind.rawValue) session \(sid)"),
                                         status: 404)
        }
        owners.forget(sid)
        await rooms.leave(participantSid: sid)
        return HTTPResponse(status: 200)
    }

    /// Makes every WHIP and WHEP participant whose token `apiKeySid` signed leave (the key was
    /// revoked). Returns how many left.
    @discardableResult
    func revoke(apiKeySid: String) async -> Int {
        let doomed = owners.sessions { $0.apiKeySid == apiKeySid }
        for sid in doomed {
            guard let owner = owners.owner(of: sid) else { continue }
            owners.forget(sid)
            try? await roomRouter.service(accountSid: owner.accountSid, room: owner.roomSid).leave(participantSid: sid)
        }
        if !doomed.isEmpty { Log.info(.platform, "\(doomed.count) WHIP/WHEP participants of revoked API key \(apiKeySid) left") }
        return doomed.count
    }

    /// Forgets participants that left by themselves (their peer closed the session).
    private func prune() async {
        let all = owners.all
        for (roomSid, accountSid) in Dictionary(all.values.map { ($0.roomSid, $0.accountSid) }, uniquingKeysWith: { first, _ in first }) {
            guard let rooms = try? await roomRouter.service(accountSid: accountSid, room: roomSid) else { continue }
            let connected = Set(await rooms.connectedParticipants(roomSid: roomSid).map(\.sid))
            for (sid, owner) in all where owner.roomSid == roomSid && !connected.contains(sid) { owners.forget(sid) }
        }
    }

    /// A WHIP offer must publish something, a WHEP offer receive something (53403).
    static func check(_ offer: RoomResourceOffer, for kind: Kind) throws(ParleyError) {
        switch kind {
        case .whip where offer.tracks.isEmpty:
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "a WHIP offer needs a sending audio or video section")
        case .whep where offer.slots.values.reduce(0, +) == 0:
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "a WHEP offer needs a receiving audio or video section")
        default:
            break
        }
    }

    /// What a viewer asked to receive: `?participant=` or `?tracks=`, else the room's first tracks.
    static func choice(_ request: HTTPRequest) -> WHEPSelection.Choice { WHEPSelection.Choice(query: request) }

    /// The HTTP status of a join the room service refused.
    static func status(for error: ParleyError) -> Int {
        switch error.code {
        case .roomMaxParticipantsExceeded: 409
        case .tooManyRequests: 429
        case .roomNotFound: 404
        case .mediaServerLocalDescFailed, .signalingConnection: 503
        default: 400
        }
    }
}
