import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// Insights events and call feedback from the SDKs (issue 6 §5), with `Authorization: Bearer <JWT>`
/// (a voice or a video grant is needed, else 403 with 31403):
///
/// - `POST /v1/insights` `{"events": [{"group", "name", "level": "info"|"warning"|"error",
///   "timestamp": <ms>, "call_sid"?, "payload"?: {…}}]}`: 1-100 events, at most 64 KiB → 202
///   `{"stored": n}`; a malformed batch is refused whole (400, 31400, the reason names the field).
/// - `GET /v1/insights?call_sid=CA…` (or no `call_sid`: the caller's own events), `page_size`
///   (≤ 1000, default 100) and `offset` → `{"events": […], "next_offset": n | null}`, oldest first,
///   from the token's account only.
/// - `POST /v1/feedback` `{"call_sid", "score": 1-5?, "issues": ["dropped-call", …]?}` → 201 with
///   the stored `feedback`/`received` event; the call must be the account's (404 otherwise).
///
/// The REST API lists the same events at `Accounts/{AC}/Calls/{CA}/Insights.json`.
package struct InsightsEndpoint: APIEndpoint {
    static let insightsPath = "/v1/insights"
    static let feedbackPath = "/v1/feedback"
    static let maxPageSize = 1000
    let store: any PlatformStore
    /// Milliseconds since the epoch.
    var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }

    package init(store: any PlatformStore, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        self.store = store
        self.now = now
    }

    static func matches(_ path: String) -> Bool { path == insightsPath || path == feedbackPath }
    package func matches(_ path: String) -> Bool { Self.matches(path) }

    package func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse {
        let token: VerifiedToken
        do { token = try router.authenticate(request) } catch {
            return APIErrorResponse.make(error, status: APIErrorResponse.status(forTokenError: error))
        }
        // The voice SDK's events and the video SDK's (a video grant alone: its rooms' events).
        guard token.voice != nil || token.video != nil else {
            return APIErrorResponse.make(ParleyError(.forbidden, reason: "the access token has no voice or video grant"), status: 403)
        }
        let origin = InsightsWire.Origin(accountSid: token.accountSid, identity: token.identity, nowMilliseconds: now())
        switch (request.method, request.path) {
        case ("POST", Self.insightsPath): return publish(request, origin: origin)
        case ("GET", Self.insightsPath): return list(request, token: token)
        case ("POST", Self.feedbackPath): return feedback(request, origin: origin)
        default:
            var response = APIErrorResponse.make(ParleyError(.badRequest, reason: "method \(request.method) not allowed"),
                                                 status: 405)
            response.headers.set("Allow", request.path == Self.insightsPath ? "GET, POST" : "POST")
            return response
        }
    }

    private func publish(_ request: HTTPRequest, origin: InsightsWire.Origin) -> HTTPResponse {
        if let tooLarge = Self.refuseLargeBody(request) { return tooLarge }
        do throws(ParleyError) {
            let events = try InsightsWire.decodeBatch(request.body, origin: origin)
            try save(events)
            Log.debug(.platform, "insights: \(events.count) events from \(origin.identity) of \(origin.accountSid)")
            return .json(JSONValue.object(["stored": .integer(Int64(events.count))]).serialized(), status: 202)
        } catch {
            return APIErrorResponse.make(error, status: error.code == .internalServer ? 500 : 400)
        }
    }

    private func feedback(_ request: HTTPRequest, origin: InsightsWire.Origin) -> HTTPResponse {
        if let tooLarge = Self.refuseLargeBody(request) { return tooLarge }
        do throws(ParleyError) {
            let event = try InsightsWire.decodeFeedback(request.body, origin: origin)
            let call: CallRecord?
            do { call = try store.call(sid: event.callSid ?? "") } catch {
                throw ParleyError(.internalServer, reason: "cannot read the call")
            }
            guard let call, call.accountSid == origin.accountSid else {
                return APIErrorResponse.make(ParleyError(.notFound, reason: "no call \(event.callSid ?? "") in this account"),
                                             status: 404)
            }
            try save([event])
            Log.info(.platform, "feedback on \(call.sid) from \(origin.identity): \(event.payload)")
            return .json(InsightsWire.json(event).serialized(), status: 201)
        } catch {
            return APIErrorResponse.make(error, status: error.code == .internalServer ? 500 : 400)
        }
    }

    private func list(_ request: HTTPRequest, token: VerifiedToken) -> HTTPResponse {
        var query = InsightsQuery(accountSid: token.accountSid)
        if let callSid = request.queryValue("call_sid"), !callSid.isEmpty {
            guard SID.isValid(callSid, prefix: "CA") else {
                return APIErrorResponse.make(ParleyError(.badRequest, reason: "call_sid must be a call SID"), status: 400)
            }
            query.callSid = callSid
        } else {
            query.identity = token.identity
        }
        guard let pageSize = Self.integer(request.queryValue("page_size"), default: 100, in: 1...Self.maxPageSize),
              let offset = Self.integer(request.queryValue("offset"), default: 0, in: 0...RESTPaging.maxOffset) else {
            return APIErrorResponse.make(ParleyError(.badRequest, reason: "page_size must be 1-\(Self.maxPageSize), offset ≥ 0"),
                                         status: 400)
        }
        query.offset = offset
        query.limit = pageSize + 1  // one more tells whether a next page exists
        let found: [InsightsEvent]
        do { found = try store.insightsEvents(query) } catch {
            Log.error(.platform, "insights read failed: \(error)")
            return APIErrorResponse.make(ParleyError(.internalServer, reason: "cannot read the events"), status: 500)
        }
        let body: JSONObject = [
            "events": .array(found.prefix(pageSize).map(InsightsWire.json)),
            "next_offset": found.count > pageSize ? .integer(Int64(offset + pageSize)) : .null,
        ]
        return .json(JSONValue.object(body).serialized())
    }

    private func save(_ events: [InsightsEvent]) throws(ParleyError) {
        do { try store.insertInsightsEvents(events) } catch {
            Log.error(.platform, "insights store failed: \(error)")
            throw ParleyError(.internalServer, reason: "cannot store the events")
        }
    }

    private static func refuseLargeBody(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.body.count > InsightsWire.maxBodyBytes else { return nil }
        return APIErrorResponse.make(ParleyError(.badRequest, reason: "the body exceeds \(InsightsWire.maxBodyBytes) bytes"),
                                     status: 413)
    }

    private static func integer(_ text: String?, default value: Int, in range: ClosedRange<Int>) -> Int? {
        guard let text else { return value }
        guard let n = Int(text), range.contains(n) else { return nil }
        return n
    }
}
