import AccessToken
import HTTPWire
import ParleyCore
import ParleyStore

/// `Calls.json` and `Calls/{CA}.json`.
extension TwilioRESTRouter {
    func listCalls(_ context: Context) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let paging = try RESTPaging(context.parameters)
        var query = try RESTCallFilters.query(context.parameters, accountSid: context.account.sid)
        query.offset = paging.offset
        query.limit = paging.pageSize + 1  // one more tells whether a next page exists
        let finalQuery = query
        let found = try storeCall { () throws(StoreError) in try store.calls(finalQuery) }
        let records = found.prefix(paging.pageSize).map(RESTResourceJSON.call)
        return Self.json(paging.envelope(key: "calls", records: Array(records), hasMore: found.count > paging.pageSize,
                                         path: context.path, filters: RESTCallFilters.echoed(context.parameters)))
    }

    func call(_ context: Context, sid: String) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        let record = try ownedCall(sid, context)
        guard context.method == "POST" else { return Self.json(RESTResourceJSON.call(record)) }
        try await update(record, context)
        return Self.json(RESTResourceJSON.call(try ownedCall(sid, context)))
    }

    /// `Status=completed|canceled` ends the call; `Url` (+`Method`) redirects it. An ended call
    /// takes a hang-up as a no-op (the vendor does the same) but refuses a redirect with 21220, as
    /// does a call this server's engine does not hold.
    private func update(_ record: CallRecord, _ context: Context) async throws(RESTFailure) {
        let p = context.parameters
        if p["Twiml"] != nil {
            throw .invalidParameter("Twiml is not supported: host the document and pass its Url")
        }
        if let status = p["Status"], !status.isEmpty {
            guard status == "completed" || status == "canceled" else {
                throw .invalidParameter("Status must be completed or canceled, got \(status)")
            }
            if record.status.isFinal { return }
            guard let calls, await calls.hangUp(callSid: record.sid, status: status) else {
                throw .invalidCallState("Call \(record.sid) is not live on this server")
            }
            return
        }
        if let url = try Self.url(p, "Url") {
            let method = try Self.method(p, "Method", fallback: "POST")
            guard !record.status.isFinal else {
                throw .invalidCallState("Call is not in-progress. Cannot redirect.")
            }
            guard let calls, await calls.redirect(callSid: record.sid, url: url, method: method) else {
                throw .invalidCallState("Call \(record.sid) is not live on this server")
            }
        }
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
