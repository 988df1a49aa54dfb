import Foundation
import ParleyStore
import Testing

/// Behaviour every `SIPCredentialStore` shares: run against SQLite and the in-memory twin.
@Suite struct SIPCredentialStoreTests {
    @Test(arguments: StoreKind.allCases)
    func endpointsKeepDigestSecretsAndUniqueNames(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme")
        #expect(SID.isValidAuthID(acme.authID))
        #expect(try store.account(authID: acme.authID) == acme)
        #expect(try store.account(authID: "MA0000000000000000XX") == nil)

        let alice = try store.createEndpoint(accountSid: acme.sid, username: "alice", password: "s3cret-pass", realm: "parley",
                                             alias: "Alice", applicationSid: nil)
        let again = try store.createEndpoint(accountSid: acme.sid, username: "alice", password: "other-pass", realm: "parley",
                                             alias: "Alice 2", applicationSid: "AP00000000000000000000000000000000")
        #expect(alice.username != again.username && alice.username.hasPrefix("alice") && alice.username.count == 17)
        // H(username:realm:password) for the users of RFC 2617 §3.5 (MD5) and RFC 7616 §3.9.1 (SHA-256).
        #expect(SIPDigestSecret(username: "Mufasa", realm: "testrealm@host.com", password: "Circle Of Life").ha1MD5
                == "939e7578ed9e3c518a452acee763bce9")
        #expect(SIPDigestSecret(username: "Mufasa", realm: "http-auth@example.org", password: "Circle of Life").ha1SHA256
                == "7987c64c30e25f1b74be53f966b49b90f2808aa92faf9a00262392d7b4794232")
        #expect(alice.secret.matches(username: alice.username, password: "s3cret-pass"))
        #expect(!alice.secret.matches(username: alice.username, password: "s3cret-pasS"))
        #expect(!"\(alice)".contains(alice.secret.ha1MD5) && !"\(alice.secret)".contains(alice.secret.ha1MD5))

        #expect(try store.endpoint(username: alice.username) == alice)
        #expect(try store.endpoints(accountSid: acme.sid).map(\.id) == [alice.id, again.id])
        var changed = alice
        changed.alias = "Alice A"
        changed.secret = SIPDigestSecret(username: alice.username, realm: "parley", password: "new-pass-1")
        let updated = try store.updateEndpoint(changed)
        #expect(updated.alias == "Alice A" && updated.secret == changed.secret)
        #expect(try store.endpoint(id: alice.id) == updated)

        let candidates = try store.sipAuthCandidates(username: alice.username, domain: "parley.example", purpose: .registration)
        #expect(candidates == [SIPAuthCandidate(accountSid: acme.sid, secret: changed.secret, identity: .endpoint(updated))])
        #expect(try store.sipAuthCandidates(username: "nobody", domain: "parley.example", purpose: .call).isEmpty)

        #expect(try store.deleteEndpoint(id: alice.id))
        #expect(try !store.deleteEndpoint(id: alice.id))
        #expect(try store.endpoint(username: alice.username) == nil)
        #expect(throws: StoreError.notFound("account ACnone")) {
            try store.createEndpoint(accountSid: "ACnone", username: "x", password: "s3cret-pass", realm: "parley", alias: "x",
                                     applicationSid: nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func listsDomainsAndMappings(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme"), globex = try store.createAccount(friendlyName: "Globex")
        let phones = try store.createSIPList(kind: .credentials, accountSid: acme.sid, friendlyName: "phones")
        let spare = try store.createSIPList(kind: .credentials, accountSid: acme.sid, friendlyName: "spare")
        let acl = try store.createSIPList(kind: .ipAddresses, accountSid: acme.sid, friendlyName: "carrier")
        #expect(SID.isValid(phones.sid, prefix: "CL") && SID.isValid(acl.sid, prefix: "AL"))
        #expect(try store.sipLists(kind: .credentials, accountSid: acme.sid).map(\.sid) == [phones.sid, spare.sid])

        let alice = try store.createCredential(listSid: phones.sid, username: "alice", password: "IWasAtSignal2018", realm: "parley")
        _ = try store.createCredential(listSid: spare.sid, username: "alice", password: "Another1Password", realm: "parley")
        #expect(throws: StoreError.conflict("credential alice")) {
            try store.createCredential(listSid: phones.sid, username: "alice", password: "x", realm: "parley")
        }
        #expect(throws: StoreError.notFound("SIP list \(acl.sid)")) {
            try store.createCredential(listSid: acl.sid, username: "bob", password: "x", realm: "parley")
        }
        let range = try store.createIPAddress(listSid: acl.sid, friendlyName: "edge", address: "2001:db8::", prefixLength: 32)

        let domain = try store.createSIPDomain(SIPDomainDraft(domainName: "acme.sip.test", voiceURL: "https://app/sip",
                                                              sipRegistration: true), accountSid: acme.sid)
        #expect(throws: StoreError.self) {
            try store.createSIPDomain(SIPDomainDraft(domainName: "acme.sip.test"), accountSid: globex.sid)
        }
        #expect(try store.sipDomain(name: "ACME.sip.test") == domain)
        _ = try store.createSIPMapping(domainSid: domain.sid, kind: .registrationCredentials, listSid: phones.sid)
        _ = try store.createSIPMapping(domainSid: domain.sid, kind: .registrationCredentials, listSid: spare.sid)
        _ = try store.createSIPMapping(domainSid: domain.sid, kind: .callIPAccessControl, listSid: acl.sid)
        #expect(throws: StoreError.self) {
            try store.createSIPMapping(domainSid: domain.sid, kind: .callCredentials, listSid: acl.sid)
        }
        let globexList = try store.createSIPList(kind: .credentials, accountSid: globex.sid, friendlyName: "theirs")
        #expect(throws: StoreError.self) {
            try store.createSIPMapping(domainSid: domain.sid, kind: .callCredentials, listSid: globexList.sid)
        }

        // The same username in two mapped lists: both are candidates.
        let found = try store.sipAuthCandidates(username: "alice", domain: "acme.sip.test", purpose: .registration)
        #expect(found.count == 2)
        #expect(found.first?.identity == .credential(alice, domain: domain))
        #expect(try store.sipDomainAdmitting(address: "2001:db8:1::5", domain: "acme.sip.test") == domain)
        #expect(try store.sipDomainAdmitting(address: "2001:db9::5", domain: "acme.sip.test") == nil)
        #expect(try store.ipAccessControlLists(containing: "2001:db8::9").map(\.sid) == [acl.sid])

        var moved = range
        moved.address = "10.0.0.0"
        moved.prefixLength = 8
        _ = try store.updateIPAddress(moved)
        #expect(try store.ipAccessControlLists(containing: "2001:db8::9").isEmpty)
        #expect(try store.ipAccessControlLists(containing: "10.1.2.3").map(\.sid) == [acl.sid])

        // Deleting a list takes its entries and mappings; deleting a domain its mappings.
        #expect(try store.deleteSIPList(sid: spare.sid))
        #expect(try store.sipMappings(domainSid: domain.sid, kind: .registrationCredentials).map(\.listSid) == [phones.sid])
        #expect(try store.deleteSIPDomain(sid: domain.sid))
        #expect(try store.sipMappings(domainSid: domain.sid, kind: .callIPAccessControl).isEmpty)
        #expect(try store.sipAuthCandidates(username: "alice", domain: "acme.sip.test", purpose: .registration).isEmpty)
        #expect(try store.deleteSIPList(sid: acl.sid))
        #expect(try store.allIPAddresses().isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func limitsAreEnforced(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let acme = try store.createAccount(friendlyName: "Acme")
        let acl = try store.createSIPList(kind: .ipAddresses, accountSid: acme.sid, friendlyName: "carrier")
        for i in 0..<SIPCredentialLimits.ipAddressesPerList {
            _ = try store.createIPAddress(listSid: acl.sid, friendlyName: "\(i)", address: "192.0.2.\(i)", prefixLength: 32)
        }
        #expect(throws: StoreError.limitReached("IP addresses of list \(acl.sid)")) {
            try store.createIPAddress(listSid: acl.sid, friendlyName: "one more", address: "192.0.2.200", prefixLength: 32)
        }
        for i in 0..<SIPCredentialLimits.domainsPerAccount {
            _ = try store.createSIPDomain(SIPDomainDraft(domainName: "d\(i).sip.test"), accountSid: acme.sid)
        }
        #expect(throws: StoreError.limitReached("SIP domains of account \(acme.sid)")) {
            try store.createSIPDomain(SIPDomainDraft(domainName: "over.sip.test"), accountSid: acme.sid)
        }
    }

    @Test func sqliteKeepsSIPRecordsAcrossReopen() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let (account, endpoint) = try {
            let store = try SQLiteAccountStore(path: path)
            let account = try store.createAccount(friendlyName: "Acme")
            return (account, try store.createEndpoint(accountSid: account.sid, username: "alice", password: "s3cret-pass",
                                                      realm: "parley", alias: "Alice", applicationSid: nil))
        }()
        let reopened = try SQLiteAccountStore(path: path)
        #expect(try reopened.account(authID: account.authID)?.sid == account.sid)
        #expect(try reopened.endpoint(username: endpoint.username) == endpoint)
    }

    @Test func ipRangesParseAndMatch() {
        #expect(IPAddressRange(address: "192.0.2.1", prefixLength: 33) == nil)
        #expect(IPAddressRange(address: "example.com", prefixLength: 32) == nil)
        #expect(IPAddressRange(address: "", prefixLength: 0) == nil)
        let v4 = IPAddressRange(address: "192.0.2.128", prefixLength: 25)
        #expect(v4?.contains("192.0.2.200") == true)
        #expect(v4?.contains("192.0.2.127") == false)
        #expect(v4?.contains("not an address") == false)
        #expect(IPAddressRange(address: "0.0.0.0", prefixLength: 0)?.contains("203.0.113.9") == true)
        #expect(IPAddressRange(address: "::1", prefixLength: 128)?.contains("::1") == true)
        #expect(IPAddressRange(address: "::1", prefixLength: 128)?.contains("127.0.0.1") == false)
    }
}
