/// Insights events the SDKs publish (issue 6 §5; the seed's "Insights" tables: group, name, level)
/// and call feedback, kept per account. `SQLiteAccountStore` persists them (migration 3);
/// `InMemoryAccountStore` is the twin. Both pass the same suite.
public protocol InsightsStore: Sendable {
    /// Stores `events` together (one transaction): all or none. `.notFound("account …")` when an
    /// event names an account that does not exist.
    func insertInsightsEvents(_ events: [InsightsEvent]) throws(StoreError)
    /// The events matching `query`, oldest first (client timestamp, then arrival order), one page.
    func insightsEvents(_ query: InsightsQuery) throws(StoreError) -> [InsightsEvent]
}

/// One Insights event as a client reported it.
public struct InsightsEvent: Sendable, Equatable {
    public let accountSid: String
    /// The identity of the access token that published the event.
    public var identity: String
    /// The call it belongs to (`CA…`), if any: registration events have none.
    public var callSid: String?
    /// The seed's group (`connection`, `registration`, `settings`, `feedback`, …).
    public var group: String
    /// The seed's event name (`outgoing`, `registration-error`, `codec`, …).
    public var name: String
    /// `info`, `warning` or `error`.
    public var level: String
    /// When the client says it happened, milliseconds since the epoch.
    public var timestamp: Int64
    /// The event's payload: a JSON object, as text.
    public var payload: String
    /// When the server stored it, seconds since the epoch.
    public var receivedAt: Int64

    public init(accountSid: String, identity: String, callSid: String?, group: String, name: String, level: String,
                timestamp: Int64, payload: String = "{}", receivedAt: Int64) {
        self.accountSid = accountSid
        self.identity = identity
        self.callSid = callSid
        self.group = group
        self.name = name
        self.level = level
        self.timestamp = timestamp
        self.payload = payload
        self.receivedAt = receivedAt
    }
}

/// A page of one account's Insights events: one call's, or (no `callSid`) one identity's, or all.
public struct InsightsQuery: Sendable, Equatable {
    public var accountSid: String
    public var callSid: String?
    public var identity: String?
    public var offset: Int
    public var limit: Int

    public init(accountSid: String, callSid: String? = nil, identity: String? = nil, offset: Int = 0, limit: Int = 100) {
        self.accountSid = accountSid
        self.callSid = callSid
        self.identity = identity
        self.offset = offset
        self.limit = limit
    }

    /// Whether `event` passes the filters (paging aside); the SQL in `SQLiteAccountStore+Insights` says the same.
    func matches(_ event: InsightsEvent) -> Bool {
        event.accountSid == accountSid && (callSid == nil || event.callSid == callSid)
            && (identity == nil || event.identity == identity)
    }
}
