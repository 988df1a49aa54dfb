import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyCore

/// Routes the platform's HTTP API. Pure request → response (no sockets), so tests call it directly.
///
/// - `GET /healthz`: liveness, no auth.
/// - `GET /metrics`: counters (Prometheus text), no auth; bind the server to loopback or firewall it.
/// - `GET /v1/me`: the caller's verified access token (identity, account, grants). Auth: `Authorization:
///   Bearer <JWT>` or `X-Twilio-Token: <JWT>`. Failures answer 401 with the token error code.
/// - Everything else goes to the first of its `endpoints` that matches the path (the services:
///   `/v1/echo`, the REST API, push registrations, Insights), or is answered 404.
public struct APIRouter: Sendable {
    let verifier: AccessTokenVerifier
    let metrics: ServerMetrics
    let version: String
    /// The services' resources, asked in order.
    let endpoints: [any APIEndpoint]
    /// Lines `/metrics` adds to the counters (the media server's figures).
    let figures: (@Sendable () async -> [MetricFigure])?

    package init(verifier: AccessTokenVerifier, metrics: ServerMetrics, version: String = ParleyVersion.current,
                 endpoints: [any APIEndpoint] = [], figures: (@Sendable () async -> [MetricFigure])? = nil) {
        self.verifier = verifier
        self.metrics = metrics
        self.version = version
        self.endpoints = endpoints
        self.figures = figures
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        metrics.countRequest()
        if let endpoint = endpoint(for: request.path) { return await endpoint.handle(request, router: self) }
        switch (request.method, request.path) {
        case ("GET", "/healthz"), ("HEAD", "/healthz"):
            let body: JSONObject = ["status": .string("ok"), "version": .string(version)]
            return .json(JSONValue.object(body).serialized())
        case ("GET", "/metrics"):
            let extra = await figures?() ?? []
            var response = HTTPResponse.text(metrics.render(extra: extra))
            response.headers.set("Content-Type", "text/plain; version=0.0.4")
            return response
        case ("GET", "/v1/me"):
            return me(request)
        case (_, "/healthz"), (_, "/metrics"), (_, "/v1/me"):
            var response = APIErrorResponse.make(ParleyError(.badRequest, reason: "method \(request.method) not allowed"), status: 405)
            response.headers.set("Allow", request.path == "/v1/me" || request.path == "/metrics" ? "GET" : "GET, HEAD")
            return response
        default:
            return APIErrorResponse.make(ParleyError(.notFound, reason: "no resource at \(request.path)"), status: 404)
        }
    }

    /// Decides on a request by its head, before its body is read (`HTTPServer.Admission`): a
    /// request to an authenticated resource without valid credentials is answered now — 401 with
    /// the token's code, or the REST API's 20003 — and its body never buffered. Resources that
    /// take no body answer as they would without one.
    public func admit(_ head: HTTPRequest) async -> HTTPResponse? {
        if let endpoint = endpoint(for: head.path) { return await endpoint.admit(head, router: self) }
        return await handle(head)
    }

    private func endpoint(for path: String) -> (any APIEndpoint)? {
        endpoints.first { $0.matches(path) }
    }

    /// The 401 for a request without a valid access token; nil when it has one (not counted:
    /// the handler verifies it again and counts then).
    package func tokenRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        if let jwt = Self.bearerToken(request), (try? verifier.verify(jwt)) != nil { return nil }
        do {
            _ = try authenticate(request)
            return nil
        } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
    }

    /// Verifies the request's access token, counting the outcome.
    public func authenticate(_ request: HTTPRequest) throws(ParleyError) -> VerifiedToken {
        guard let jwt = Self.bearerToken(request) else {
            metrics.countTokenRejected(code: ParleyError.Code.accessTokenInvalid.rawValue)
            throw ParleyError(.accessTokenInvalid, reason: "no access token: send Authorization: Bearer <token>")
        }
        do {
            let token = try verifier.verify(jwt)
            metrics.countTokenAccepted()
            return token
        } catch {
            metrics.countTokenRejected(code: error.code.rawValue)
            Log.info(.platform, "token rejected: \(error.code)")
            throw error
        }
    }

    private func me(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let token = try authenticate(request)
            var body: JSONObject = [
                "identity": .string(token.identity),
                "account_sid": .string(token.accountSid),
                "api_key_sid": .string(token.apiKeySid),
                "expires": .integer(token.expires),
            ]
            if let region = token.region { body["region"] = .string(region) }
            var grants = JSONObject()
            if let voice = token.voice { grants["voice"] = .object(voice.json) }
            if let video = token.video { grants["video"] = .object(video.json) }
            body["grants"] = .object(grants)
            return .json(JSONValue.object(body).serialized())
        } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
    }

    /// The token from `Authorization: Bearer …` or `X-Twilio-Token`.
    package static func bearerToken(_ request: HTTPRequest) -> String? {
        if let auth = request.headers["Authorization"] {
            let parts = auth.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return request.headers["X-Twilio-Token"]
    }
}

/// The version `parley-server` reports.
public enum ParleyVersion {
    public static let current = "0.1.0"
}
