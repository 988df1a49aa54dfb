import ParleyStore
import Testing

/// SIP bindings (issue 18 §2): replaced per address of record, listed in order, expired on time,
/// and kept across a reopen of the SQLite file. SQLite and the in-memory twin alike.
@Suite struct SIPRegistrationStoreTests {
    private func binding(_ contact: String, expiresAt: Int64, instance: String? = nil) -> SIPBindingRecord {
        SIPBindingRecord(contact: contact, expiresAt: expiresAt, qMillis: 500, callID: "c1", cseq: 3, instance: instance,
                         regID: instance == nil ? nil : 1, source: "udp:127.0.0.1:5062")
    }

    @Test(arguments: StoreKind.allCases)
    func bindingsAreReplacedListedAndExpired(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme"), globex = try store.createAccount(friendlyName: "Globex")
        let alice = [binding("sip:alice@10.0.0.2:5060", expiresAt: 2_000), binding("sip:alice@10.0.0.3", expiresAt: 5_000, instance: "<urn:uuid:1>")]
        try store.replaceSIPBindings(accountSid: acme.sid, aor: "sip:alice@parley", with: alice)
        try store.replaceSIPBindings(accountSid: globex.sid, aor: "sip:alice@parley", with: [binding("sip:other@x", expiresAt: 9_000)])
        #expect(try store.sipBindings(accountSid: acme.sid, aor: "sip:alice@parley") == alice)
        #expect(try store.sipBindings(accountSid: acme.sid, aor: "sip:bob@parley").isEmpty)
        #expect(try store.sipBindingCount() == 3)

        #expect(try store.deleteExpiredSIPBindings(now: 2_000) == 1)
        #expect(try store.sipBindings(accountSid: acme.sid, aor: "sip:alice@parley") == [alice[1]])
        try store.replaceSIPBindings(accountSid: acme.sid, aor: "sip:alice@parley", with: [])
        #expect(try store.sipBindingCount() == 1)
        #expect(throws: StoreError.self) { try store.replaceSIPBindings(accountSid: "AC-none", aor: "sip:a@b", with: alice) }
    }

    @Test func bindingsSurviveReopeningTheFile() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let account = try SQLiteAccountStore(path: path).createAccount(friendlyName: "Acme")
        try SQLiteAccountStore(path: path).replaceSIPBindings(accountSid: account.sid, aor: "sip:a@p", with: [binding("sip:a@h", expiresAt: 7)])
        #expect(try SQLiteAccountStore(path: path).sipBindings(accountSid: account.sid, aor: "sip:a@p") == [binding("sip:a@h", expiresAt: 7)])
    }

    @Test(arguments: StoreKind.allCases)
    func aBatchIsAppliedInOrderAndSkipsMissingAccounts(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme")
        let a = binding("sip:a@h", expiresAt: 7), b = binding("sip:b@h", expiresAt: 8)
        try store.replaceSIPBindings([SIPBindingChange(accountSid: acme.sid, aor: "sip:a@p", bindings: [a]),
                                      SIPBindingChange(accountSid: "AC-none", aor: "sip:a@p", bindings: [a]),
                                      SIPBindingChange(accountSid: acme.sid, aor: "sip:b@p", bindings: [b]),
                                      SIPBindingChange(accountSid: acme.sid, aor: "sip:a@p", bindings: [a, b])])
        #expect(try store.sipBindings(accountSid: acme.sid, aor: "sip:a@p") == [a, b])
        #expect(try store.sipBindingCount() == 3)
    }

    /// The write-behind table answers from memory at once, writes the file only on `flush()`
    /// (one batch, the latest change per address of record), flushes inline when `maxPending`
    /// changes wait, and what it flushed is there when the file is opened again.
    @Test func theWriteBehindTableServesFromMemoryAndWritesInBatches() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let sqlite = try SQLiteAccountStore(path: path)
        let account = try sqlite.createAccount(friendlyName: "Acme").sid
        try sqlite.replaceSIPBindings(accountSid: account, aor: "sip:old@p", with: [binding("sip:old@h", expiresAt: 9_000)])
        let table = WriteBehindSIPRegistrations(backing: sqlite, maxPending: 3)
        #expect(try table.sipBindings(accountSid: account, aor: "sip:old@p").count == 1)  // read through once

        let a = binding("sip:a@h", expiresAt: 1_000), b = binding("sip:b@h", expiresAt: 5_000)
        try table.replaceSIPBindings(accountSid: account, aor: "sip:a@p", with: [a])
        try table.replaceSIPBindings(accountSid: account, aor: "sip:a@p", with: [a, b])
        #expect(try table.sipBindings(accountSid: account, aor: "sip:a@p") == [a, b])
        #expect(try sqlite.sipBindings(accountSid: account, aor: "sip:a@p").isEmpty)
        #expect(table.pendingCount == 1)
        try table.flush()
        #expect(try sqlite.sipBindings(accountSid: account, aor: "sip:a@p") == [a, b])
        #expect(table.pendingCount == 0)

        try table.replaceSIPBindings(accountSid: account, aor: "sip:old@p", with: [])
        try table.replaceSIPBindings(accountSid: account, aor: "sip:c@p", with: [b])
        #expect(table.pendingCount == 2)
        try table.replaceSIPBindings(accountSid: account, aor: "sip:d@p", with: [b])  // the third: flushed inline
        #expect(table.pendingCount == 0)
        #expect(try sqlite.sipBindings(accountSid: account, aor: "sip:old@p").isEmpty)

        #expect(try table.deleteExpiredSIPBindings(now: 1_000) == 1)
        #expect(try table.sipBindings(accountSid: account, aor: "sip:a@p") == [b])
        try table.replaceSIPBindings(accountSid: account, aor: "sip:e@p", with: [b])
        #expect(try table.sipBindingCount() == 4)  // counting flushes first
        #expect(try SQLiteAccountStore(path: path).sipBindings(accountSid: account, aor: "sip:e@p") == [b])
    }
}
