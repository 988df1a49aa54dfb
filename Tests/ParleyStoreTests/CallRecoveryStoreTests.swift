import ParleyStore
import Testing

/// What a restart needs of the store after a crash: the calls left unfinished (every account,
/// oldest first) and the server's last heartbeat. SQLite and the in-memory twin alike.
@Suite struct CallRecoveryStoreTests {
    @Test(arguments: StoreKind.allCases)
    func unfinishedCallsAndTheLastHeartbeat(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme"), globex = try store.createAccount(friendlyName: "Globex")
        var records: [CallRecord] = []
        for (i, status) in CallStatus.allCases.enumerated() {
            var call = CallRecord.sample(account: i % 2 == 0 ? acme.sid : globex.sid, start: Int64(100 - i))
            call.status = status
            try store.insertCall(call)
            records.append(call)
        }
        let open = records.filter { !$0.status.isFinal }.sorted { $0.startTime < $1.startTime }
        #expect(try store.unfinishedCalls() == open)
        #expect(Set(open.map(\.status)) == [.queued, .initiated, .ringing, .inProgress])

        #expect(try store.lastLiveness() == nil)
        try store.recordLiveness(at: 1_000)
        try store.recordLiveness(at: 1_005)
        #expect(try store.lastLiveness() == 1_005)
    }

    @Test func theHeartbeatSurvivesReopening() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        try SQLiteAccountStore(path: path).recordLiveness(at: 42)
        #expect(try SQLiteAccountStore(path: path).lastLiveness() == 42)
    }
}
