import HTTPWire
import JSONWire
import ParleyCore

/// Error bodies in the shape of Twilio's REST API (`code`, `message`, `more_info`, `status`), so
/// clients written for it read Parley's errors unchanged.
package enum APIErrorResponse {
    package static func make(_ error: ParleyError, status: Int) -> HTTPResponse {
        var body: JSONObject = [
            "code": .integer(Int64(error.code.rawValue)),
            "message": .string(error.code.text),
            "name": .string(error.code.name),
            "status": .integer(Int64(status)),
            // The codes are the vendor's, so its page for each code applies.
            "more_info": .string("https://www.twilio.com/docs/errors/\(error.code.rawValue)"),
        ]
        if let reason = error.failureReason { body["reason"] = .string(reason) }
        return .json(JSONValue.object(body).serialized(), status: status)
    }

    /// What the HTTP server answers by itself (malformed, oversized, over-budget or timed-out
    /// requests), in the same shape: 408 → 31408, 503 → 31503, the rest → 31400, with the reason.
    package static func serverError(status: Int, detail: String) -> HTTPResponse {
        let code: ParleyError.Code = switch status {
        case 408: .requestTimeout
        case 503: .serviceUnavailable
        default: .badRequest
        }
        let reason = switch status {
        case 413: "the request body is over the server's limit"
        case 431: "the request head is over the server's limit"
        default: detail
        }
        var response = make(ParleyError(code, reason: reason), status: status)
        if status == 503 { response.headers.set("Retry-After", "1") }
        return response
    }

    /// The HTTP status for a token failure: 401 for every 201xx access-token code, 403 for 20403.
    package static func status(forTokenError error: ParleyError) -> Int {
        error.code == .accessForbidden ? 403 : 401
    }
}
