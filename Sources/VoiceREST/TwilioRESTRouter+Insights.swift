import AccessToken
import HTTPWire
import ParleyStore
import PlatformCore

/// `Calls/{CA}/Insights.json`: the Insights events and feedback of one call, oldest first, in the
/// list envelope of the other resources (`events`, paging).
extension TwilioRESTRouter {
    func listInsights(_ context: Context, callSid: String) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        guard SID.isValid(callSid, prefix: "CA") else { throw .notFound(context.path) }
        let paging = try RESTPaging(context.parameters)
        let query = InsightsQuery(accountSid: context.account.sid, callSid: callSid, offset: paging.offset,
                                  limit: paging.pageSize + 1)  // one more tells whether a next page exists
        let found = try storeCall { () throws(StoreError) in try store.insightsEvents(query) }
        let records = found.prefix(paging.pageSize).map(InsightsWire.json)
        return Self.json(paging.envelope(key: "events", records: Array(records), hasMore: found.count > paging.pageSize,
                                         path: context.path, filters: []))
    }
}
