import AccessToken
import Foundation
import HTTPWire
import ParleyCore
import PlatformCore
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
    let owners = SessionOwners<QuotaLease>()
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
        let allow = id == nil ? "POST, OPTIONS" : "DELETE, OPTIONS"
        let response: HTTPResponse = switch (request.method, id) {
        case ("OPTIONS", _): WHIPHTTP.preflight(methods: "POST, DELETE, OPTIONS", allow: allow)
        case ("POST", nil): await create(request, router: router)
        case ("DELETE", let id?) where !id.isEmpty && !id.contains("/"): await delete(id: id, request: request, router: router)
        case (_, nil), (_, _?): WHIPHTTP.methodNotAllowed(request.method, allow: allow)
        }
        return WHIPHTTP.cors(response, for: request)
    }

    private func create(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken, offer: String
        switch WHIPHTTP.offer(request, router: router) {
        case .success(let accepted): (token, offer) = accepted
        case .failure(let refusal): return refusal.response
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
            let answer = try await media.createEchoSession(offer: offer) { event in
                guard case .stateChanged(let id, let state, _) = event, state.isTerminal else { return }
                lease.release()
                owners.ended(id)
            }
            owners.started(answer.id, owner: lease)
            return WHIPHTTP.created(answer: answer.sdp, location: "\(Self.collection)/\(answer.id)", etag: answer.id)
        } catch {
            lease.release()
            return WHIPHTTP.mediaRefusal(error)
        }
    }

    private func delete(id: String, request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken
        switch WHIPHTTP.token(request, router: router) {
        case .success(let verified): token = verified
        case .failure(let refusal): return refusal.response
        }
        // Another account's session is as unknown as one that never existed.
        guard let lease = owners.owner(of: id), lease.owner.accountSid == token.accountSid,
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
        for id in owners.sessions(where: { $0.owner.apiKeySid == apiKeySid }) {
            if await media.closeSession(id: id) { closed += 1 }
        }
        if closed > 0 { Log.info(.platform, "closed \(closed) echo sessions of revoked API key \(apiKeySid)") }
        return closed
    }
}
