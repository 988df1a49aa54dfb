import HTTPWire
import JSONWire
import ParleyCore
import ParleyNet
import Synchronization

/// The SDKs' REST requests to `parley-server` (registrations, Insights, feedback, the echo
/// service): one HTTP client for the process, made on first use, and the server's JSON error
/// bodies (`APIErrorResponse`: `code`, `message`, or the SDK endpoints' `reason`) read back as
/// `ParleyError`s.
package enum ClientHTTP {
    private static let shared = Mutex<HTTPClient?>(nil)

    package static func client() throws -> HTTPClient {
        try shared.withLock { client in
            if let client { return client }
            let made = try HTTPClient(configuration: HTTPClient.Configuration(threads: 1))
            client = made
            return made
        }
    }

    /// Sends `request` to `server` (its base URL) with `token` as the bearer credential; throws
    /// `unreachable` (31005 by default) when no answer comes. Any status is returned.
    package static func send(_ request: HTTPRequest, to server: String, token: String, timeout: Duration = .seconds(15),
                             unreachable: ParleyError.Code = .connection) async throws(ParleyError) -> HTTPResponse {
        var request = request
        request.headers.set("Authorization", "Bearer \(token)")
        if !request.body.isEmpty, request.headers["Content-Type"] == nil {
            request.headers.set("Content-Type", "application/json")
        }
        do {
            return try await client().send(request, to: server + request.target, timeout: timeout)
        } catch {
            throw ParleyError(unreachable, reason: "cannot reach \(server): \(error)")
        }
    }

    /// The error a refusal carries: its JSON body's `code` (else `fallback`) and `reason` or
    /// `message` (else the HTTP status).
    package static func error(from response: HTTPResponse, fallback: ParleyError.Code) -> ParleyError {
        let json = (try? JSONValue.parse(response.body))?.objectValue
        var code = fallback.rawValue
        if case .integer(let number)? = json?["code"], let exact = Int(exactly: number) { code = exact }
        return ParleyError(ParleyError.Code(rawValue: code),
                           reason: json?["reason"]?.stringValue ?? json?["message"]?.stringValue ?? "HTTP \(response.status)")
    }
}
