import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore
import TwiML

/// `Calls.json` and `Calls/{CA}.json`.
extension TwilioRESTRouter {
    func listCalls(_ context: Context) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        if context.method == "POST" { return try await createCall(context) }
        let paging = try RESTPaging(context.parameters)
        var query = try RESTCallFilters.query(context.parameters, accountSid: context.account.sid)
        query.offset = paging.offset
        query.limit = paging.pageSize + 1  // one more tells whether a next page exists
        let finalQuery = query
        let found = try storeCall { () throws(StoreError) in try store.calls(finalQuery) }
        let page = Array(found.prefix(paging.pageSize))
        let records = try callsJSON(page)
        return Self.json(paging.envelope(key: "calls", records: records, hasMore: found.count > paging.pageSize,
                                         path: context.path, filters: RESTCallFilters.echoed(context.parameters)))
    }

    func call(_ context: Context, sid: String) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST, DELETE")
        let record = try ownedCall(sid, context)
        switch context.method {
        case "POST":
            try await update(record, context)
            return Self.json(try callsJSON([try ownedCall(sid, context)])[0])
        case "DELETE":
            // The vendor keeps a call's record until it is over (20009), then deletes it for good;
            // its recordings stay (they have their own DELETE).
            guard record.status.isFinal else {
                throw RESTFailure(status: 409, code: .deleteBeforeComplete,
                                  message: "Cannot delete this resource before it is complete")
            }
            guard try storeCall({ () throws(StoreError) in try store.deleteCall(sid: sid) }) else { throw .notFound(context.path) }
            return .status(204)
        default:
            return Self.json(try callsJSON([record])[0])
        }
    }

    /// Calls in the vendor's shape; a dialed leg's `forwarded_from` is what its parent call was to.
    func callsJSON(_ records: [CallRecord]) throws(RESTFailure) -> [JSONValue] {
        var parentTo: [String: String] = [:]
        for parent in Set(records.compactMap(\.parentCallSid)) {
            parentTo[parent] = try storeCall { () throws(StoreError) in try store.call(sid: parent) }?.to
        }
        return records.map { RESTResourceJSON.call($0, forwardedFrom: $0.parentCallSid.flatMap { parentTo[$0] }) }
    }

    /// One rule for a call that is over (or that no running engine holds): every update is 21220,
    /// as the vendor answers any real-time operation on a call that is not in progress. On a live call:
    /// - `Status=completed` hangs up; `Status=canceled` ends it only while it is not answered
    ///   (the vendor's rule: canceled "does not affect calls already in progress");
    /// - `Url` (+`Method`) redirects it; `Twiml` replaces its TwiML in place (`Url` wins when both
    ///   are given, as with the vendor, who warns 32019);
    /// - a call created over REST takes `Url`/`Twiml` only once answered.
    private func update(_ record: CallRecord, _ context: Context) async throws(RESTFailure) {
        let p = context.parameters
        let status = p["Status"].flatMap { $0.isEmpty ? nil : $0 }
        if let status, status != "completed" && status != "canceled" {
            throw .invalidParameter("Status must be completed or canceled, got \(status)")
        }
        let url = try Self.url(p, "Url")
        let method = try Self.method(p, "Method", fallback: "POST")
        let twiml = try Self.twiml(p)
        guard status != nil || url != nil || twiml != nil else { return }
        guard !record.status.isFinal else {
            throw .invalidCallState("Call is not in-progress. Cannot \(status == nil ? "redirect" : "hang up").")
        }
        guard let calls else { throw .invalidCallState("Call \(record.sid) is not live on this server") }
        let createdOverREST = record.direction == "outbound-api" && record.parentCallSid == nil
        if let status {
            if createdOverREST, record.answerTime == nil, await calls.cancelRinging(callSid: record.sid) { return }
            if status == "canceled", record.status == .inProgress { return }
            guard await calls.hangUp(callSid: record.sid, status: status) else {
                throw .invalidCallState("Call \(record.sid) is not live on this server")
            }
            return
        }
        if createdOverREST, record.status != .inProgress {
            throw .invalidCallState("Call is not in-progress. Cannot redirect.")
        }
        let done: Bool
        if let url {
            done = await calls.redirect(callSid: record.sid, url: url, method: method)
        } else if let twiml {
            done = await calls.replaceTwiML(callSid: record.sid, document: twiml)
        } else {
            done = true
        }
        guard done else { throw .invalidCallState("Call \(record.sid) is not live on this server") }
    }

    /// The call with `sid` if it belongs to the authenticated account, else 404.
    private func ownedCall(_ sid: String, _ context: Context) throws(RESTFailure) -> CallRecord {
        guard let record = try storeCall({ () throws(StoreError) in try store.call(sid: sid) }),
              record.accountSid == context.account.sid else { throw .notFound(context.path) }
        return record
    }
}

/// The Calls list filters. `StartTime` and `EndTime` take a date (`YYYY-MM-DD`) or a UTC date-time;
/// the vendor's documented forms are `StartTime>=D` and `StartTime<=D`, which arrive from a raw
/// URL as the names `StartTime>` / `StartTime<`, and the `twilio` library sends `StartTime>` /
/// `StartTime<` with a date-time. So:
/// - `StartTime=X`: calls that started on X's UTC day.
/// - `StartTime>X`, `StartTime>=X`: started at or after X (a date means its midnight).
/// - `StartTime<=X`, and `StartTime<X` with a date: started at or before X (a date means the end of its day).
/// - `StartTime<X` with a date-time: started strictly before X (the library's `start_time_before`).
/// `EndTime` works the same on the end time; calls that have not ended never match it.
enum RESTCallFilters {
    static let echoedNames = ["Status", "To", "From", "ParentCallSid", "StartTime", "StartTime>", "StartTime>=",
                              "StartTime<", "StartTime<=", "EndTime", "EndTime>", "EndTime>=", "EndTime<", "EndTime<="]

    static func query(_ p: RESTParameters, accountSid: String) throws(RESTFailure) -> CallQuery {
        var query = CallQuery(accountSid: accountSid)
        if let text = p["Status"], !text.isEmpty {
            guard let status = CallStatus(rawValue: text) else { throw .invalidParameter("Status \(text) is not a call status") }
            query.status = status
        }
        query.to = nonEmpty(p["To"])
        query.from = nonEmpty(p["From"])
        query.parentCallSid = nonEmpty(p["ParentCallSid"])
        let start = try bounds(p, "StartTime")
        query.startedOnOrAfter = start.lower
        query.startedOnOrBefore = start.upper
        let end = try bounds(p, "EndTime")
        query.endedOnOrAfter = end.lower
        query.endedOnOrBefore = end.upper
        return query
    }

    /// The filters as sent, to repeat in the page URIs.
    static func echoed(_ p: RESTParameters) -> [(String, String)] {
        echoedNames.compactMap { name in p[name].flatMap { $0.isEmpty ? nil : (name, $0) } }
    }

    /// Inclusive bounds from `name`, `name>`, `name>=`, `name<`, `name<=` (the tightest wins).
    static func bounds(_ p: RESTParameters, _ name: String) throws(RESTFailure) -> (lower: Int64?, upper: Int64?) {
        var lower: Int64?
        var upper: Int64?
        func raise(_ t: Int64) { lower = max(lower ?? t, t) }
        func cap(_ t: Int64) { upper = min(upper ?? t, t) }
        if let t = try time(p, name) {
            raise(t.dayStart)
            cap(t.dayEnd)
        }
        for suffix in [">", ">="] { if let t = try time(p, name + suffix) { raise(t.seconds) } }
        if let t = try time(p, name + "<=") { cap(t.isDate ? t.dayEnd : t.seconds) }
        if let t = try time(p, name + "<") { cap(t.isDate ? t.dayEnd : t.seconds - 1) }
        return (lower, upper)
    }

    private static func time(_ p: RESTParameters, _ name: String) throws(RESTFailure) -> RESTTime.FilterTime? {
        guard let text = p[name], !text.isEmpty else { return nil }
        guard let t = RESTTime.parseFilter(text) else {
            throw .invalidParameter("\(name) must be YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, got \(text)")
        }
        return t
    }

    private static func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }
}
