/// Accounts and their API keys. `SQLiteAccountStore` persists them; `InMemoryAccountStore` is the
/// twin for tests. Both pass the same test suite.
public protocol AccountStore: Sendable {
    /// Creates an account with a new random `AC…` SID.
    func createAccount(friendlyName: String) throws(StoreError) -> Account
    /// The account with `sid`, or nil.
    func account(sid: String) throws(StoreError) -> Account?
    /// The account whose Plivo-style auth ID is `authID`, or nil.
    func account(authID: String) throws(StoreError) -> Account?
    /// All accounts, oldest first.
    func accounts() throws(StoreError) -> [Account]
    /// Creates an API key with a new `SK…` SID and secret under an existing account
    /// (`.notFound` otherwise). The returned key is the only time callers need to show the secret.
    func createAPIKey(accountSid: String, friendlyName: String) throws(StoreError) -> APIKey
    /// The key with `sid` (revoked or not), or nil.
    func apiKey(sid: String) throws(StoreError) -> APIKey?
    /// Keys of one account, or of all accounts for nil; oldest first, revoked included.
    func apiKeys(accountSid: String?) throws(StoreError) -> [APIKey]
    /// Marks a key revoked (idempotent). `.notFound` if there is no such key.
    func revokeAPIKey(sid: String) throws(StoreError)
    /// On first start, creates the default account and an API key and returns them; later, returns
    /// the default account and its oldest active key, creating a key if all were revoked.
    func ensureDefaultAccount() throws(StoreError) -> DefaultCredentials
    /// Replaces the account's auth token with a new random one and returns the updated account;
    /// the old token stops working at once. `.notFound` if there is no such account.
    func rotateAuthToken(accountSid: String) throws(StoreError) -> Account
    /// A value that changes whenever keys or auth tokens may have changed, through this store or
    /// (for SQLite) through another connection, such as `parley keys revoke` in another process.
    /// Cheap enough to poll a few times a second; compare values for equality only.
    func credentialsVersion() throws(StoreError) -> CredentialsVersion
}

/// What `AccountStore.credentialsVersion()` returns: when it differs from an earlier value, the
/// keys and auth tokens are worth reading again (they may also be unchanged).
public struct CredentialsVersion: Sendable, Hashable {
    /// Changes made by other connections to the same database (SQLite `PRAGMA data_version`).
    public var external: Int64
    /// Key and auth-token changes made through this store object.
    public var local: Int64

    public init(external: Int64, local: Int64) {
        self.external = external
        self.local = local
    }
}

extension AccountStore {
    /// The key with `sid` if it exists and is not revoked.
    public func activeAPIKey(sid: String) throws(StoreError) -> APIKey? {
        guard let key = try apiKey(sid: sid), !key.revoked else { return nil }
        return key
    }

    /// The oldest active key of any account, or nil.
    public func firstActiveAPIKey() throws(StoreError) -> APIKey? {
        try apiKeys(accountSid: nil).first { !$0.revoked }
    }
}

/// Name of the account `ensureDefaultAccount()` creates.
let defaultAccountName = "Default account"
/// Name of the API key `ensureDefaultAccount()` creates.
let defaultKeyName = "Default key"
