import AccessToken
import HTTPWire
import ParleyCore
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
/// 415 for a body that is not SDP, 503 with 53401 when the media server is full.
struct EchoEndpoint: Sendable {
    let media: MediaTransportServer
    static let collection = "/v1/echo"

    static func matches(_ path: String) -> Bool {
        path == collection || path.hasPrefix(collection + "/")
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
        do {
            _ = try router.authenticate(request)
        } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/sdp" else {
            return APIErrorResponse.make(ParleyError(.badRequest, reason: "POST an SDP offer with Content-Type: application/sdp"),
                                         status: 415)
        }
        do {
            let answer = try await media.createEchoSession(offer: request.bodyText)
            var response = HTTPResponse(status: 201, headers: ["Content-Type": "application/sdp",
                                                               "Location": "\(Self.collection)/\(answer.id)"],
                                        body: Array(answer.sdp.utf8))
            response.headers.set("ETag", "\"\(answer.id)\"")
            return response
        } catch {
            let status = error.code == .mediaServerLocalDescFailed ? 503 : 400
            return APIErrorResponse.make(error, status: status)
        }
    }

    private func delete(id: String, request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        do {
            _ = try router.authenticate(request)
        } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
        guard await media.closeSession(id: id) else {
            return APIErrorResponse.make(ParleyError(.notFound, reason: "no echo session \(id)"), status: 404)
        }
        return HTTPResponse(status: 200)
    }
}
