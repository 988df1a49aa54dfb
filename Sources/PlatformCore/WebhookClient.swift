import HTTPWire
import ParleyCore
import ParleyCrypto
import ParleyNet
import TwiML

/// Requests an application's webhooks the way Twilio does: form-encoded parameters (POST body or
/// GET query), `X-Twilio-Signature` computed with the account's auth token, a bounded wait. Used
/// for TwiML documents and for status callbacks.
package struct WebhookClient: Sendable {
    package let http: HTTPClient
    package var timeout: Duration

    package init(http: HTTPClient, timeout: Duration = .seconds(15)) {
        self.http = http
        self.timeout = timeout
    }

    /// What a webhook request produced.
    package struct Reply: Sendable {
        package var status: Int
        package var body: [UInt8]
    }

    /// Sends the request and returns the reply, whatever its status. Throws 31502 when the URL is
    /// unusable or unreachable and 31504 when it does not answer in time.
    package func send(url: String, method: TwiMLMethod, parameters: [(String, String)],
              authToken: String) async throws(ParleyError) -> Reply {
        var request = HTTPRequest(method: method.rawValue)
        let target: String
        if method == .get {
            let query = FormURLEncoding.encode(parameters)
            target = query.isEmpty ? url : url + (url.contains("?") ? "&" : "?") + query
            request.headers.set("X-Twilio-Signature", WebhookSignature.compute(url: target, parameters: [], authToken: authToken))
        } else {
            target = url
            request.body = Array(FormURLEncoding.encode(parameters).utf8)
            request.headers.set("Content-Type", "application/x-www-form-urlencoded")
            request.headers.set("X-Twilio-Signature", WebhookSignature.compute(url: url, parameters: parameters,
                                                                                authToken: authToken))
        }
        request.headers.set("User-Agent", "Parley/\(ParleyVersion.current)")
        request.headers.set("Accept", "text/xml, application/xml, */*")
        do {
            let response = try await http.send(request, to: target, timeout: timeout)
            return Reply(status: response.status, body: response.body)
        } catch let error as NetError {
            if case .timeout = error {
                throw ParleyError(.gatewayTimeout, reason: "\(Self.redacted(url)) did not answer within \(timeout)")
            }
            throw ParleyError(.badGateway, reason: "\(Self.redacted(url)) is unreachable: \(error)")
        } catch {
            throw ParleyError(.badGateway, reason: "\(Self.redacted(url)) is unreachable: \(error)")
        }
    }

    /// Fetches and parses a TwiML document. Non-2xx answers give 31502; a body that is not valid
    /// TwiML gives 31500 with the parser's reason.
    package func fetchTwiML(url: String, method: TwiMLMethod, parameters: [(String, String)],
                    authToken: String) async throws(ParleyError) -> TwiMLResponse {
        let reply = try await send(url: url, method: method, parameters: parameters, authToken: authToken)
        guard (200..<300).contains(reply.status) else {
            throw ParleyError(.badGateway, reason: "\(Self.redacted(url)) answered HTTP \(reply.status)")
        }
        do {
            return try TwiMLResponse(parsing: reply.body)
        } catch {
            throw ParleyError(.internalServer, reason: "invalid TwiML from \(Self.redacted(url)): \(error)")
        }
    }

    package static func redacted(_ url: String) -> String { URLRedaction.redacted(url) }
}
