import Foundation
import AccessToken
import HTTPWire
import JSONWire
import ParleyCore
import WebRTC

/// Routes the platform's HTTP API. Pure request → response (no sockets), so tests call it directly.
///
/// - `GET /healthz`: liveness, no auth.
/// - `GET /metrics`: counters (Prometheus text), no auth; bind the server to loopback or firewall it.
/// - `GET /v1/me`: the caller's verified access token (identity, account, grants). Auth: `Authorization:
///   Bearer <JWT>` or `X-Twilio-Token: <JWT>`. Failures answer 401 with the token error code.
/// - `POST /v1/echo`, `DELETE /v1/echo/<id>`, `OPTIONS`: WHIP-style audio echo (`EchoEndpoint`).
/// - `/v1/insights`, `/v1/feedback`: the SDKs' Insights events and call feedback (`InsightsEndpoint`).
public struct APIRouter: Sendable {
    let verifier: AccessTokenVerifier
    let metrics: ServerMetrics
    let version: String
    /// `/v1/echo` (see `EchoEndpoint`); nil when the server runs without media.
    let echo: EchoEndpoint?
    let media: MediaTransportServer?
    /// The Twilio-compatible REST API under `/2010-04-01/`.
    let rest: TwilioRESTRouter?
    /// `/v1/registrations`: push bindings.
    let registrations: PushRegistrationEndpoint?
    /// `/v1/insights` and `/v1/feedback`, on the same store as the push bindings.
    let insights: InsightsEndpoint?

    public init(verifier: AccessTokenVerifier, metrics: ServerMetrics, version: String = ParleyVersion.current,
                media: MediaTransportServer? = nil, rest: TwilioRESTRouter? = nil) {
        self.init(verifier: verifier, metrics: metrics, version: version, media: media,
                  echo: media.map { EchoEndpoint(media: $0, quotas: QuotaLedger(limits: QuotaLimits())) },
                  rest: rest, registrations: nil)
    }

    init(verifier: AccessTokenVerifier, metrics: ServerMetrics, version: String, media: MediaTransportServer?,
         echo: EchoEndpoint?, rest: TwilioRESTRouter?, registrations: PushRegistrationEndpoint?) {
        self.verifier = verifier
        self.metrics = metrics
        self.version = version
        self.media = media
        self.echo = echo
        self.rest = rest
        self.registrations = registrations
        insights = registrations.map { InsightsEndpoint(store: $0.store) }
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        metrics.countRequest()
        if let echo, EchoEndpoint.matches(request.path) { return await echo.handle(request, router: self) }
        if let rest, TwilioRESTRouter.matches(request.path) { return await rest.handle(request) }
        if let registrations, PushRegistrationEndpoint.matches(request.path) {
            return await registrations.handle(request, router: self)
        }
        if let insights, InsightsEndpoint.matches(request.path) { return await insights.handle(request, router: self) }
        switch (request.method, request.path) {
        case ("GET", "/healthz"), ("HEAD", "/healthz"):
            let body: JSONObject = ["status": .string("ok"), "version": .string(version)]
            return .json(JSONValue.object(body).serialized())
        case ("GET", "/metrics"):
            var extra: [(name: String, type: String, value: Int)] = []
            if let media {
                let stats = await media.statistics()
                extra = [("parley_media_sessions", "gauge", stats.sessions),
                         ("parley_media_datagrams_received_total", "counter", stats.datagramsReceived),
                         ("parley_media_datagrams_sent_total", "counter", stats.datagramsSent),
                         ("parley_media_rtp_forwarded_total", "counter", stats.rtpForwarded),
                         ("parley_media_dropped_total", "counter", stats.unknownDropped + stats.unroutedDropped)]
            }
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
        if let echo, EchoEndpoint.matches(head.path) {
            return head.method == "POST" || head.method == "DELETE" ? tokenRefusal(head) : nil
        }
        if let rest, TwilioRESTRouter.matches(head.path) { return rest.admit(head) }
        if let registrations, PushRegistrationEndpoint.matches(head.path) { return tokenRefusal(head) }
        if let insights, InsightsEndpoint.matches(head.path) { return tokenRefusal(head) }
        return await handle(head)
    }

    /// The 401 for a request without a valid access token; nil when it has one (not counted:
    /// the handler verifies it again and counts then).
    private func tokenRefusal(_ request: HTTPRequest) -> HTTPResponse? {
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
    static func bearerToken(_ request: HTTPRequest) -> String? {
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
