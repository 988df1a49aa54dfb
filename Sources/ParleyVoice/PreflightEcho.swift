import HTTPWire
import ParleyClientCore
import ParleyCore

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
        request.headers.set("Content-Type", "application/sdp")
        let response = try await ClientHTTP.send(request, to: server, token: token)
        guard response.status == 201 || response.status == 200 else {
            throw ClientHTTP.error(from: response, fallback: .connection)
        }
        return Session(answer: response.bodyText, location: response.headers["Location"])
    }

    /// Ends the session; failures are only logged (the server also ends sessions whose media stops).
    static func delete(server: String, location: String, token: String) async {
        do throws(ParleyError) {
            let response = try await ClientHTTP.send(HTTPRequest(method: "DELETE", target: location), to: server, token: token)
            if response.status >= 300 { Log.debug(.core, "preflight: DELETE \(location) → HTTP \(response.status)") }
        } catch {
            Log.debug(.core, "preflight: DELETE \(location) failed: \(error.failureReason ?? error.code.text)")
        }
    }
}
