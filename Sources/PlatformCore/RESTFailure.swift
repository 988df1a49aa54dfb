import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore

/// A failed REST request, answered in the vendor's v2010 error shape:
/// `{"code": 20404, "message": "…", "more_info": "https://www.twilio.com/docs/errors/20404", "status": 404}`.
/// The `twilio` library turns that into a `TwilioRestException` with the same code, status and message.
package struct RESTFailure: Error, Sendable {
    package let status: Int
    package let code: ParleyError.Code
    package let message: String
    /// Extra headers (`WWW-Authenticate`, `Allow`).
    package var headers: HTTPHeaders

    package init(status: Int, code: ParleyError.Code, message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// 401, 20003: missing, malformed, wrong or foreign credentials (the vendor answers a valid
    /// credential for another account the same way).
    package static func authenticate() -> RESTFailure {
        RESTFailure(status: 401, code: .authenticationFailed, message: "Authenticate",
                    headers: ["WWW-Authenticate": "Basic realm=\"Parley\""])
    }

    /// 404, 20404 with the vendor's wording.
    package static func notFound(_ path: String) -> RESTFailure {
        RESTFailure(status: 404, code: .resourceNotFound, message: "The requested resource \(path) was not found")
    }

    /// 400, 20001.
    package static func invalidParameter(_ message: String) -> RESTFailure {
        RESTFailure(status: 400, code: .invalidParameter, message: message)
    }

    /// 405, 20004, with `Allow`.
    package static func methodNotAllowed(_ method: String, allow: String) -> RESTFailure {
        RESTFailure(status: 405, code: .methodNotAllowed, message: "Method \(method) not allowed",
                    headers: ["Allow": allow])
    }

    /// 400, 21220: the call is not live here (ended, or owned by no running call engine).
    package static func invalidCallState(_ message: String) -> RESTFailure {
        RESTFailure(status: 400, code: .invalidCallState, message: message)
    }

    /// 500, 20500 for a store failure; the store's message stays in the server log.
    package static func store(_ error: StoreError) -> RESTFailure {
        Log.error(.platform, "REST API store failure: \(error)")
        return RESTFailure(status: 500, code: .restInternalServer, message: "Internal server error")
    }

    package var response: HTTPResponse {
        let body: JSONObject = [
            "code": .integer(Int64(code.rawValue)),
            "message": .string(message),
            "more_info": .string("https://www.twilio.com/docs/errors/\(code.rawValue)"),
            "status": .integer(Int64(status)),
        ]
        var response = HTTPResponse.json(JSONValue.object(body).serialized(), status: status)
        for field in headers { response.headers.set(field.name, field.value) }
        return response
    }
}

/// Runs a store call, turning its error into a 500.
package func storeCall<T>(_ body: () throws(StoreError) -> T) throws(RESTFailure) -> T {
    do { return try body() } catch { throw RESTFailure.store(error) }
}
