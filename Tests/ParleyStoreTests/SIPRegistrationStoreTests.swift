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
}
