import Foundation
import Synchronization

/// An `AccountStore` and `VoiceStore` in memory, for tests and ephemeral servers. Voice state lives
/// in `InMemoryAccountStore+Voice.swift`.
public final class InMemoryAccountStore: AccountStore {
    struct State {
        var accounts: [Account] = []
        var keys: [APIKey] = []
        var defaultAccountSid: String?
        var voice = InMemoryVoiceState()
        var rooms = InMemoryRoomState()
        var recordings = InMemoryRecordingState()
        /// SIP bindings by "account aor" (`InMemoryAccountStore+SIPRegistrations.swift`).
        var sipBindings: [String: [SIPBindingRecord]] = [:]
        var sip = InMemorySIPState()
        var phoneNumbers: [IncomingPhoneNumber] = []
        /// Insights events in insertion order (`InMemoryAccountStore+Insights.swift`).
        var insights: [InsightsEvent] = []
        /// Bumped by every key and auth-token change (`credentialsVersion()`).
        var credentialWrites: Int64 = 0
    }

    let state = Mutex(State())
    let now: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.now = now
    }

    public func createAccount(friendlyName: String) throws(StoreError) -> Account {
        let account = Account(sid: SID.make("AC"), friendlyName: friendlyName, createdAt: now(),
                              authToken: SID.makeAuthToken(), authID: SID.makeAuthID())
        state.withLock { $0.accounts.append(account) }
        return account
    }

    public func account(sid: String) throws(StoreError) -> Account? {
        state.withLock { s in s.accounts.first { $0.sid == sid } }
    }

    public func account(authID: String) throws(StoreError) -> Account? {
        state.withLock { s in s.accounts.first { $0.authID == authID } }
    }

    public func accounts() throws(StoreError) -> [Account] {
        state.withLock { $0.accounts }
    }

    public func createAPIKey(accountSid: String, friendlyName: String) throws(StoreError) -> APIKey {
        let created = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> APIKey in
            try Self.createKey(in: &s, accountSid: accountSid, friendlyName: friendlyName, at: created)
        }
    }

    public func credentialsVersion() throws(StoreError) -> CredentialsVersion {
        CredentialsVersion(external: 0, local: state.withLock { $0.credentialWrites })
    }

    public func apiKey(sid: String) throws(StoreError) -> APIKey? {
        state.withLock { s in s.keys.first { $0.sid == sid } }
    }

    public func apiKeys(accountSid: String?) throws(StoreError) -> [APIKey] {
        state.withLock { s in s.keys.filter { accountSid == nil || $0.accountSid == accountSid } }
    }

    public func revokeAPIKey(sid: String) throws(StoreError) {
        try state.withLock { (s: inout State) throws(StoreError) in
            guard let i = s.keys.firstIndex(where: { $0.sid == sid }) else { throw .notFound("API key \(sid)") }
            let k = s.keys[i]
            s.keys[i] = APIKey(sid: k.sid, accountSid: k.accountSid, friendlyName: k.friendlyName, secret: k.secret,
                               createdAt: k.createdAt, revoked: true)
            s.credentialWrites += 1
        }
    }

    public func ensureDefaultAccount() throws(StoreError) -> DefaultCredentials {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> DefaultCredentials in
            var created = false
            let account: Account
            if let sid = s.defaultAccountSid, let existing = s.accounts.first(where: { $0.sid == sid }) {
                account = existing
            } else {
                account = Account(sid: SID.make("AC"), friendlyName: defaultAccountName, createdAt: time,
                                  authToken: SID.makeAuthToken(), authID: SID.makeAuthID())
                s.accounts.append(account)
                s.defaultAccountSid = account.sid
                created = true
            }
            if let key = s.keys.first(where: { $0.accountSid == account.sid && !$0.revoked }) {
                return DefaultCredentials(account: account, apiKey: key, created: created)
            }
            let key = try Self.createKey(in: &s, accountSid: account.sid, friendlyName: defaultKeyName, at: time)
            return DefaultCredentials(account: account, apiKey: key, created: true)
        }
    }

    public func rotateAuthToken(accountSid: String) throws(StoreError) -> Account {
        let token = SID.makeAuthToken()
        return try state.withLock { (s: inout State) throws(StoreError) -> Account in
            guard let i = s.accounts.firstIndex(where: { $0.sid == accountSid }) else {
                throw .notFound("account \(accountSid)")
            }
            let a = s.accounts[i]
            s.accounts[i] = Account(sid: a.sid, friendlyName: a.friendlyName, createdAt: a.createdAt, authToken: token,
                                    authID: a.authID)
            s.credentialWrites += 1
            return s.accounts[i]
        }
    }

    private static func createKey(in s: inout State, accountSid: String, friendlyName: String,
                                  at time: Int64) throws(StoreError) -> APIKey {
        guard s.accounts.contains(where: { $0.sid == accountSid }) else { throw .notFound("account \(accountSid)") }
        let key = APIKey(sid: SID.make("SK"), accountSid: accountSid, friendlyName: friendlyName,
                         secret: SID.makeSecret(), createdAt: time, revoked: false)
        s.keys.append(key)
        s.credentialWrites += 1
        return key
    }
}
