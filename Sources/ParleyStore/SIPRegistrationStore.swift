/// SIP registrations (RFC 3261 §10): each address of record's bindings, as the registrar decided
/// them. `SQLiteAccountStore` persists them (so they survive a restart), `InMemoryAccountStore` is
/// the twin for tests; a shared store (Redis, PostgreSQL) for several nodes implements the same.
/// `WriteBehindSIPRegistrations` serves them from memory in front of any of these.
public protocol SIPRegistrationStore: Sendable {
    /// Replaces the bindings of `aor` in `accountSid` with `bindings` (an empty list removes them), atomically.
    func replaceSIPBindings(accountSid: String, aor: String, with bindings: [SIPBindingRecord]) throws(StoreError)
    /// Applies `changes` in order, in one transaction where the store has them (a write-behind
    /// batch). A change for an account that no longer exists is skipped.
    func replaceSIPBindings(_ changes: [SIPBindingChange]) throws(StoreError)
    /// The bindings of `aor`, expired ones included (the registrar filters by its clock).
    func sipBindings(accountSid: String, aor: String) throws(StoreError) -> [SIPBindingRecord]
    /// Removes every binding that expired at or before `now` (milliseconds since the epoch); how many went.
    func deleteExpiredSIPBindings(now: Int64) throws(StoreError) -> Int
    /// How many bindings are stored (for the registrar's gauge and its bound).
    func sipBindingCount() throws(StoreError) -> Int
}

extension SIPRegistrationStore {
    /// One `replaceSIPBindings(accountSid:aor:with:)` per change: for stores without transactions over several.
    public func replaceSIPBindings(_ changes: [SIPBindingChange]) throws(StoreError) {
        for change in changes {
            do {
                try replaceSIPBindings(accountSid: change.accountSid, aor: change.aor, with: change.bindings)
            } catch .notFound {
                continue
            }
        }
    }
}

/// The new bindings of one address of record, as a batch carries them.
public struct SIPBindingChange: Sendable, Hashable {
    public var accountSid: String
    public var aor: String
    /// Empty: the address of record has no binding left.
    public var bindings: [SIPBindingRecord]

    public init(accountSid: String, aor: String, bindings: [SIPBindingRecord]) {
        (self.accountSid, self.aor, self.bindings) = (accountSid, aor, bindings)
    }
}

/// One binding of an address of record to a contact.
public struct SIPBindingRecord: Sendable, Hashable {
    public var contact: String
    /// Milliseconds since the epoch.
    public var expiresAt: Int64
    /// `q` × 1000, if the UA gave a preference.
    public var qMillis: Int?
    public var callID: String
    public var cseq: Int64
    public var instance: String?
    public var regID: Int?
    /// Where the REGISTER came from (`transport:address:port`).
    public var source: String

    public init(contact: String, expiresAt: Int64, qMillis: Int? = nil, callID: String, cseq: Int64,
                instance: String? = nil, regID: Int? = nil, source: String) {
        (self.contact, self.expiresAt, self.qMillis, self.callID, self.cseq) = (contact, expiresAt, qMillis, callID, cseq)
        (self.instance, self.regID, self.source) = (instance, regID, source)
    }
}
