import HTTPWire
import JSONWire
import ParleyCore
import ParleyNet

/// The client side of the server's echo resource (`EchoEndpoint`, WHIP-shaped as in RFC 9725):
/// `POST /v1/echo` with the SDP offer → `201 Created`, the answer, `Location: /v1/echo/<id>`;
/// `DELETE` on that location ends the session.
enum PreflightEcho {
    struct Session: Sendable {
        var answer: String
        /// The session's path (`/v1/echo/<id>`), nil if the server gave none.
        var location: String?
    }

    /// Offers `offer`; throws 31005 when the server cannot be reached and the server's code
    /// (20101 … for a refused token, 534xx for an unusable offer) when it says no.
    static func create(server: String, token: String, offer: String) async throws(ParleyError) -> Session {
        var request = HTTPRequest(method: "POST", target: "/v1/echo", body: Array(offer.utf8))
        request.headers.set("Authorization", "Bearer \(token)")
        request.headers.set("Content-Type", "application/sdp")
        let response = try await send(request, to: server)
        guard response.status == 201 || response.status == 200 else { throw serverError(response) }
        return Session(answer: response.bodyText, location: response.headers["Location"])
    }

    /// Ends the session; failures are only logged (the server also ends sessions whose media stops).
    static func delete(server: String, location: String, token: String) async {
        var request = HTTPRequest(method: "DELETE", target: location)
        request.headers.set("Authorization", "Bearer \(token)")
        do {
            let response = try await send(request, to: server)
            if response.status >= 300 { Log.debug(.core, "preflight: DELETE \(location) → HTTP \(response.status)") }
        } catch {
            Log.debug(.core, "preflight: DELETE \(location) failed: \(error)")
        }
    }

    private static func send(_ request: HTTPRequest, to server: String) async throws(ParleyError) -> HTTPResponse {
        do {
            return try await SDKHTTP.client().send(request, to: server + request.target, timeout: .seconds(15))
        } catch {
            throw ParleyError(.connection, reason: "cannot reach \(server): \(error)")
        }
    }

    /// The JSON error body's `code` (APIErrorResponse), else 31005 with the HTTP status.
    private static func serverError(_ response: HTTPResponse) -> ParleyError {
        let json = (try? JSONValue.parse(response.body))?.objectValue
        guard case .integer(let code)? = json?["code"] else {
            return ParleyError(.connection, reason: "echo service answered HTTP \(response.status)")
        }
        return ParleyError(ParleyError.Code(rawValue: Int(code)), reason: json?["reason"]?.stringValue ?? json?["message"]?.stringValue)
    }
}
