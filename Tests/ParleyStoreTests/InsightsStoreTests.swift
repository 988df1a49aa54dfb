import Foundation
import ParleyStore
import Testing

/// Insights events (migration 3): stored per account, read back per call and per identity in
/// timestamp order, paged; SQLite and the in-memory twin alike.
@Suite struct InsightsStoreTests {
    static let callA = "CA" + String(repeating: "a", count: 32)
    static let callB = "CA" + String(repeating: "b", count: 32)

    static func event(_ account: String, _ name: String, call: String?, at ms: Int64, identity: String = "alice",
                      level: String = "info", payload: String = "{}") -> InsightsEvent {
        InsightsEvent(accountSid: account, identity: identity, callSid: call, group: "connection", name: name,
                      level: level, timestamp: ms, payload: payload, receivedAt: 1_800_000_000)
    }

    @Test(arguments: StoreKind.allCases)
    func eventsStoredAndReadBackPerCall(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        let other = try store.createAccount(friendlyName: "Globex")
        let outgoing = Self.event(account.sid, "outgoing", call: Self.callA, at: 1_000, payload: #"{"to":"bob"}"#)
        let codec = InsightsEvent(accountSid: account.sid, identity: "alice", callSid: Self.callA, group: "settings",
                                  name: "codec", level: "info", timestamp: 1_500, payload: #"{"codec":"opus"}"#,
                                  receivedAt: 1_800_000_001)
        let error = Self.event(account.sid, "error", call: Self.callA, at: 1_200, level: "error")
        let registration = InsightsEvent(accountSid: account.sid, identity: "bob", callSid: nil, group: "registration",
                                         name: "registration", level: "info", timestamp: 900, receivedAt: 1_800_000_000)
        let incoming = Self.event(account.sid, "incoming", call: Self.callB, at: 1_100, identity: "bob")
        try store.insertInsightsEvents([outgoing, codec])
        try store.insertInsightsEvents([error, registration, incoming])
        let foreign = Self.event(other.sid, "outgoing", call: Self.callA, at: 1_000)
        try store.insertInsightsEvents([foreign])

        // One call's events, oldest first by the client's timestamp (not arrival order).
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, callSid: Self.callA)) == [outgoing, error, codec])
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, callSid: Self.callB)) == [incoming])
        #expect(try store.insightsEvents(InsightsQuery(accountSid: other.sid, callSid: Self.callA)) == [foreign])
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, identity: "bob")) == [registration, incoming])
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid)).map(\.name)
                == ["registration", "outgoing", "incoming", "error", "codec"])
        // Paging.
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, callSid: Self.callA, offset: 1, limit: 1)) == [error])
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, callSid: Self.callA, offset: 3)).isEmpty)
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, limit: 0)).isEmpty)
        #expect(try store.insightsEvents(InsightsQuery(accountSid: "ACnone")).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func equalTimestampsKeepArrivalOrderAndBatchesAreAllOrNone(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        let names = (0..<30).map { "event-\($0)" }
        try store.insertInsightsEvents(names.map { Self.event(account.sid, $0, call: Self.callA, at: 5_000) })
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, callSid: Self.callA)).map(\.name) == names)

        // A batch naming a missing account stores nothing, not even its valid events.
        let batch = [Self.event(account.sid, "kept?", call: Self.callB, at: 1), Self.event("ACnope", "x", call: nil, at: 2)]
        #expect(throws: StoreError.notFound("account ACnope")) { try store.insertInsightsEvents(batch) }
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid, callSid: Self.callB)).isEmpty)
        try store.insertInsightsEvents([])
        #expect(try store.insightsEvents(InsightsQuery(accountSid: account.sid)).count == 30)
    }

    @Test func sqliteEventsSurviveReopen() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let event: InsightsEvent
        do {
            let store = try SQLiteAccountStore(path: path)
            #expect(try store.schemaVersion == SQLiteAccountStore.latestSchemaVersion)
            let account = try store.createAccount(friendlyName: "Acme")
            event = Self.event(account.sid, "listening", call: nil, at: 42, payload: #"{"edge":"roaming"}"#)
            try store.insertInsightsEvents([event])
        }
        let reopened = try SQLiteAccountStore(path: path)
        #expect(try reopened.insightsEvents(InsightsQuery(accountSid: event.accountSid)) == [event])
    }
}
