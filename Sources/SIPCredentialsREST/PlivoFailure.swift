import Foundation
import ParleyCore
import HTTPWire
import JSONWire
import ParleyStore

/// A failed request to the Plivo-shaped API, answered as Plivo does: the HTTP status and
/// `{"api_id": "…", "error": "…"}`. The `plivo` library raises by status (400 `ValidationError`,
/// 401 `AuthenticationError`, 404 `ResourceNotFoundError`, 405 `InvalidRequestError`, 500
/// `PlivoServerError`) with the `error` text.
struct PlivoFailure: Error {
    let status: Int
    let message: String

    static func authentication() -> PlivoFailure { PlivoFailure(status: 401, message: "authentication failed") }
    static func notFound() -> PlivoFailure { PlivoFailure(status: 404, message: "not found") }
    static func invalid(_ message: String) -> PlivoFailure { PlivoFailure(status: 400, message: message) }
    static func methodNotAllowed(_ method: String) -> PlivoFailure {
        PlivoFailure(status: 405, message: "method \(method) not allowed")
    }

    /// 500 for a store failure; the store's message stays in the server log.
    static func store(_ error: StoreError) -> PlivoFailure {
        switch error {
        case .limitReached: return .invalid("endpoint limit reached for this account (\(SIPCredentialLimits.endpointsPerAccount))")
        case .notFound: return .notFound()
        default:
            Log.error(.platform, "Plivo API store failure: \(error)")
            return PlivoFailure(status: 500, message: "internal server error")
        }
    }

    var response: HTTPResponse {
        var body = PlivoFailure.envelope()
        body["error"] = .string(message)
        var response = HTTPResponse.json(JSONValue.object(body).serialized(), status: status)
        if status == 401 { response.headers.set("WWW-Authenticate", "Basic realm=\"Parley\"") }
        return response
    }

    /// A response body's start: a fresh `api_id`, as every Plivo answer carries.
    static func envelope() -> JSONObject { ["api_id": .string(UUID().uuidString.lowercased())] }
}

/// Runs a store call, turning its error into the Plivo answer.
func plivoStoreCall<T>(_ body: () throws(StoreError) -> T) throws(PlivoFailure) -> T {
    do { return try body() } catch { throw PlivoFailure.store(error) }
}
