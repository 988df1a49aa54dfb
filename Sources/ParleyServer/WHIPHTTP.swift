import AccessToken
import Foundation
import HTTPWire
import ParleyCore
import PlatformCore

/// What the WHIP-shaped resources (RFC 9725: `/v1/echo`, a room's WHIP and WHEP) share: the CORS
/// headers and preflight, the checks of a POSTed offer, the 201 with the answer, their errors.
enum WHIPHTTP {
    /// OPTIONS (CORS preflight, no auth, RFC 9725 §4.1 / Fetch) → 204. `methods` is what a
    /// browser may send; `allow` what this resource takes.
    static func preflight(methods: String, allow: String) -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        response.headers.set("Access-Control-Allow-Methods", methods)
        response.headers.set("Access-Control-Allow-Headers", "Authorization, Content-Type")
        response.headers.set("Access-Control-Max-Age", "600")
        response.headers.set("Allow", allow)
        return response
    }

    /// 405 with `Allow`.
    static func methodNotAllowed(_ method: String, allow: String) -> HTTPResponse {
        var response = APIErrorResponse.make(ParleyError(.badRequest, reason: "method \(method) not allowed"), status: 405)
        response.headers.set("Allow", allow)
        return response
    }

    /// Adds the CORS response headers: the request's origin (or `*`), `Location` readable.
    static func cors(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        var response = response
        response.headers.set("Access-Control-Allow-Origin", request.headers["Origin"] ?? "*")
        if request.headers["Origin"] != nil { response.headers.add("Vary", "Origin") }
        response.headers.set("Access-Control-Expose-Headers", "Location")
        return response
    }

    /// The request's verified access token, or the 401 (403 for 20403) with its code.
    static func token(_ request: HTTPRequest, router: APIRouter) -> Result<VerifiedToken, Refusal> {
        do {
            return .success(try router.authenticate(request))
        } catch {
            return .failure(Refusal(APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))))
        }
    }

    /// A POST's verified token and SDP offer, or the 401 / 415 refusing it.
    static func offer(_ request: HTTPRequest, router: APIRouter) -> Result<(VerifiedToken, String), Refusal> {
        token(request, router: router).flatMap { token in
            let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            guard type?.lowercased() == "application/sdp" else {
                return .failure(Refusal(APIErrorResponse.make(ParleyError(
                    .badRequest, reason: "POST an SDP offer with Content-Type: application/sdp"), status: 415)))
            }
            return .success((token, request.bodyText))
        }
    }

    /// 201 Created: the answer, the session's resource URL and its entity tag (RFC 9725 §4.2).
    static func created(answer: String, location: String, etag: String) -> HTTPResponse {
        var response = HTTPResponse(status: 201, headers: ["Content-Type": "application/sdp", "Location": location],
                                    body: Array(answer.utf8))
        response.headers.set("ETag", "\"\(etag)\"")
        return response
    }

    /// An offer the media plane refused: 503 when it is full (53401), else 400 (53403, 53404).
    static func mediaRefusal(_ error: ParleyError) -> HTTPResponse {
        APIErrorResponse.make(error, status: error.code == .mediaServerLocalDescFailed ? 503 : 400)
    }

    /// An answer that ends request handling early.
    struct Refusal: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }
}
