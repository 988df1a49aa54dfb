import AccessToken
import Foundation
import HTTPWire
import ParleyCore
import PlatformCore
import Synchronization
import WebRTC

/// A WHIP-shaped (RFC 9725) echo resource: the client POSTs an SDP offer, gets the answer and a
/// session URL, and whatever audio it sends comes back on a stream with the server's SSRC.
///
/// - `POST /v1/echo`: `Authorization: Bearer <JWT>`, body `application/sdp` → `201 Created`,
///   `Content-Type: application/sdp`, `Location: /v1/echo/<id>`.
/// - `DELETE /v1/echo/<id>`: ends the session → 200 (404 when unknown).
/// - `OPTIONS` on both: CORS preflight → 204 (no auth, RFC 9725 §4.1 / Fetch).
///
/// Errors use the JSON error body: 401 for tokens, 400 with 53403/53404 for unusable offers,
/// 415 for a body that is not SDP, 429 with 31429 (and `Retry-After`) when the token's identity or
/// API key holds its quota of media sessions, 503 with 53401 when the media server is full.
///
/// Each session holds a media-session quota unit of its token's identity and key until it ends
/// (DELETE, connect timeout, ICE or DTLS failure, maximum duration), and is closed when that key is
/// revoked (`revoke(apiKeySid:)`).
struct EchoEndpoint: APIEndpoint {
    let media: MediaTransportServer
    let quotas: QuotaLedger
    let owners = EchoSessionOwners()
    static let collection = "/v1/echo"

    init(media: MediaTransportServer, quotas: QuotaLedger) {
        self.media = media
        self.quotas = quotas
    }

    static func matches(_ path: String) -> Bool {
        path == collection || path.hasPrefix(collection + "/")
    }

    func matches(_ path: String) -> Bool { Self.matches(path) }

    /// POST and DELETE need a valid access token; OPTIONS (CORS preflight) needs none.
    func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? {
        head.method == "POST" || head.method == "DELETE" ? router.tokenRefusal(head) : nil
    }

    func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let path = request.path
        let id = path == Self.collection ? nil : String(path.dropFirst(Self.collection.count + 1))
        var response: HTTPResponse
        switch (request.method, id) {
        case ("OPTIONS", _):
            response = HTTPResponse(status: 204)
            response.headers.set("Access-Control-Allow-Methods", "POST, DELETE, OPTIONS")
            response.headers.set("Access-Control-Allow-Headers", "Authorization, Content-Type")
            response.headers.set("Access-Control-Max-Age", "600")
            response.headers.set("Allow", id == nil ? "POST, OPTIONS" : "DELETE, OPTIONS")
        case ("POST", nil):
            response = await create(request, router: router)
        case ("DELETE", let id?) where !id.isEmpty && !id.contains("/"):
            response = await delete(id: id, request: request, router: router)
        case (_, nil), (_, _?):
            response = APIErrorResponse.make(ParleyError(.badRequest, reason: "method \(request.method) not allowed"),
                                             status: 405)
            response.headers.set("Allow", id == nil ? "POST, OPTIONS" : "DELETE, OPTIONS")
        }
        response.headers.set("Access-Control-Allow-Origin", request.headers["Origin"] ?? "*")
        if request.headers["Origin"] != nil { response.headers.add("Vary", "Origin") }
        response.headers.set("Access-Control-Expose-Headers", "Location")
        return response
    }

    private func create(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken
        do {
            token = try router.authenticate(request)
        } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/sdp" else {
            return APIErrorResponse.make(ParleyError(.badRequest, reason: "POST an SDP offer with Content-Type: application/sdp"),
                                         status: 415)
        }
        let owner = QuotaOwner(token)
        let lease: QuotaLease
        do throws(ParleyError) {
            lease = try quotas.acquire(.mediaSession, for: owner)
        } catch {
            var response = APIErrorResponse.make(error, status: 429)
            // Sessions that never connect are gone after the connect timeout.
            response.headers.set("Retry-After", String(media.configuration.connectTimeout.components.seconds))
            return response
        }
        let owners = self.owners
        do {
            let answer = try await media.createEchoSession(offer: request.bodyText) { event in
                guard case .stateChanged(let id, let state, _) = event, state.isTerminal else { return }
                lease.release()
                owners.ended(id)
            }
            owners.started(answer.id, lease: lease)
            var response = HTTPResponse(status: 201, headers: ["Content-Type": "application/sdp",
                                                               "Location": "\(Self.collection)/\(answer.id)"],
                                        body: Array(answer.sdp.utf8))
            response.headers.set("ETag", "\"\(answer.id)\"")
            return response
        } catch {
            lease.release()
            let status = error.code == .mediaServerLocalDescFailed ? 503 : 400
            return APIErrorResponse.make(error, status: status)
        }
    }

    private func delete(id: String, request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken
        do {
            token = try router.authenticate(request)
        } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
        // Another account's session is as unknown as one that never existed.
        guard let lease = owners.lease(of: id), lease.owner.accountSid == token.accountSid,
              await media.closeSession(id: id) else {
            return APIErrorResponse.make(ParleyError(.notFound, reason: "no echo session \(id)"), status: 404)
        }
        lease.release()  // now, not when the closed event arrives: a POST right after may use it
        return HTTPResponse(status: 200)
    }

    /// Closes every echo session whose token was signed by `apiKeySid` (the key was revoked).
    /// Returns how many were closed.
    @discardableResult
    func revoke(apiKeySid: String) async -> Int {
        var closed = 0
        for id in owners.sessions(signedBy: apiKeySid) {
            if await media.closeSession(id: id) { closed += 1 }
        }
        if closed > 0 { Log.info(.platform, "closed \(closed) echo sessions of revoked API key \(apiKeySid)") }
        return closed
    }
}

/// The quota lease (and so the owner) of each live echo session: for DELETE's account check and
/// for closing a revoked key's sessions. An entry lives from the 201 until the session's terminal
/// state.
final class EchoSessionOwners: Sendable {
    private struct State {
        var leases: [String: QuotaLease] = [:]
        /// Sessions that ended before `started` recorded them (their terminal event won the race).
        var endedEarly: Set<String> = []
    }

    private let state = Mutex(State())

    func started(_ id: String, lease: QuotaLease) {
        state.withLock { s in
            if s.endedEarly.remove(id) == nil { s.leases[id] = lease }
        }
    }

    func ended(_ id: String) {
        state.withLock { s in
            if s.leases.removeValue(forKey: id) == nil { s.endedEarly.insert(id) }
        }
    }

    func lease(of id: String) -> QuotaLease? { state.withLock { $0.leases[id] } }

    func sessions(signedBy apiKeySid: String) -> [String] {
        state.withLock { s in s.leases.filter { $0.value.owner.apiKeySid == apiKeySid }.map(\.key) }
    }

    var count: Int { state.withLock { $0.leases.count } }
}
