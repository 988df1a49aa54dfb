import Synchronization
/// The in-memory twin's Insights events: insertion order stands in for SQLite's rowid.
extension InMemoryAccountStore: InsightsStore {
    public func insertInsightsEvents(_ events: [InsightsEvent]) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            // All or none, as the SQLite transaction: check every account before appending.
            for event in events where !s.accounts.contains(where: { $0.sid == event.accountSid }) {
                throw .notFound("account \(event.accountSid)")
            }
            s.insights.append(contentsOf: events)
        }
    }

    public func insightsEvents(_ query: InsightsQuery) throws(StoreError) -> [InsightsEvent] {
        guard query.limit > 0, query.offset >= 0 else { return [] }
        return state.withLock { s in
            let matching = s.insights.enumerated().filter { query.matches($0.element) }
                .sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
                .map(\.element)
            return Array(matching.dropFirst(query.offset).prefix(query.limit))
        }
    }
}
