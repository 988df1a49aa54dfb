import Foundation
import HTTPWire
import ParleyNet
import ParleyStore

/// The server process's Twilio REST API, as the `twilio` library would use it: Basic auth with
/// the store's default API key, forms in, JSON out.
extension ServerProcess {
    public struct RESTResponse: Sendable {
        public let status: Int
        public let body: String

        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]) ?? [:]
        }
    }

    /// `/2010-04-01/Accounts/{AccountSid}`.
    public var accountPath: String { "/2010-04-01/Accounts/\(credentials.account.sid)" }

    /// `method path` (relative to the account, e.g. `/Calls.json`) with `form` as the body.
    public func rest(_ method: String, _ path: String, form: [(String, String)] = []) async throws -> RESTResponse {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let basic = Data("\(credentials.apiKey.sid):\(credentials.apiKey.secret)".utf8).base64EncodedString()
        var request = HTTPRequest(method: method, target: accountPath + path)
        request.headers.set("Authorization", "Basic " + basic)
        if !form.isEmpty {
            request.headers.set("Content-Type", "application/x-www-form-urlencoded")
            request.body = Array(FormURLEncoding.encode(form).utf8)
        }
        let response = try await client.send(request, to: baseURL + accountPath + path, timeout: .seconds(10))
        return RESTResponse(status: response.status, body: String(decoding: response.body, as: UTF8.self))
    }

    /// The call's `status` as the REST API reports it, once it is one of `statuses` (polled for up to
    /// `timeout`); the last status seen otherwise.
    public func callStatus(_ sid: String, becomes statuses: Set<String>, timeout: Duration = .seconds(10)) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        var status: String?
        repeat {
            status = try await rest("GET", "/Calls/\(sid).json").json["status"] as? String
            if let status, statuses.contains(status) { return status }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        return status
    }
}
