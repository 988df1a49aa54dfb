/// Who may use the SIP service: Plivo-style endpoints and Twilio-style credential lists, domains,
/// their `Auth` mappings and IP access control lists. `SQLiteAccountStore` persists them (same
/// file, same migrations); `InMemoryAccountStore` is the twin; both pass one suite. Passwords are
/// never stored: callers pass them in and the store keeps a `SIPDigestSecret` for the realm given.
/// Creations beyond `SIPCredentialLimits` throw `.limitReached`; a missing parent throws `.notFound`.
public protocol SIPCredentialStore: Sendable {
    // MARK: Endpoints (Plivo)

    /// Creates an endpoint whose SIP username is `username` plus 12 random digits and whose ID is
    /// 14 random digits (both unique on the server).
    func createEndpoint(accountSid: String, username: String, password: String, realm: String, alias: String,
                        applicationSid: String?) throws(StoreError) -> SIPEndpoint
    func endpoint(id: String) throws(StoreError) -> SIPEndpoint?
    /// The endpoint with this SIP username, of any account.
    func endpoint(username: String) throws(StoreError) -> SIPEndpoint?
    /// The account's endpoints, oldest first.
    func endpoints(accountSid: String) throws(StoreError) -> [SIPEndpoint]
    /// Replaces alias, application and secret (`.notFound` if absent).
    func updateEndpoint(_ endpoint: SIPEndpoint) throws(StoreError) -> SIPEndpoint
    func deleteEndpoint(id: String) throws(StoreError) -> Bool

    // MARK: Credential lists and IP access control lists (Twilio)

    func createSIPList(kind: SIPListKind, accountSid: String, friendlyName: String) throws(StoreError) -> SIPList
    func sipList(sid: String) throws(StoreError) -> SIPList?
    /// The account's lists of `kind`, oldest first.
    func sipLists(kind: SIPListKind, accountSid: String) throws(StoreError) -> [SIPList]
    func updateSIPList(_ list: SIPList) throws(StoreError) -> SIPList
    /// Deletes the list, its entries and its domain mappings.
    func deleteSIPList(sid: String) throws(StoreError) -> Bool

    /// Adds a credential to a credential list (`.conflict` if the list has the username).
    func createCredential(listSid: String, username: String, password: String, realm: String) throws(StoreError) -> SIPCredential
    func credential(sid: String) throws(StoreError) -> SIPCredential?
    /// A list's credentials, oldest first.
    func credentials(listSid: String) throws(StoreError) -> [SIPCredential]
    /// Replaces the secret (`.notFound` if absent).
    func updateCredential(_ credential: SIPCredential) throws(StoreError) -> SIPCredential
    func deleteCredential(sid: String) throws(StoreError) -> Bool

    /// Adds an address range to an IP access control list (the caller validated it).
    func createIPAddress(listSid: String, friendlyName: String, address: String, prefixLength: Int) throws(StoreError) -> SIPIPAddress
    func ipAddress(sid: String) throws(StoreError) -> SIPIPAddress?
    /// A list's address ranges, oldest first.
    func ipAddresses(listSid: String) throws(StoreError) -> [SIPIPAddress]
    func updateIPAddress(_ address: SIPIPAddress) throws(StoreError) -> SIPIPAddress
    func deleteIPAddress(sid: String) throws(StoreError) -> Bool

    // MARK: Domains and their mappings (Twilio)

    /// Creates a domain (`.conflict` if any account has its name).
    func createSIPDomain(_ draft: SIPDomainDraft, accountSid: String) throws(StoreError) -> SIPDomain
    func sipDomain(sid: String) throws(StoreError) -> SIPDomain?
    /// The domain with this name (case-insensitive), of any account.
    func sipDomain(name: String) throws(StoreError) -> SIPDomain?
    func sipDomains(accountSid: String) throws(StoreError) -> [SIPDomain]
    /// Replaces the draft (`.conflict` for a name another domain has).
    func updateSIPDomain(_ domain: SIPDomain) throws(StoreError) -> SIPDomain
    /// Deletes the domain and its mappings.
    func deleteSIPDomain(sid: String) throws(StoreError) -> Bool

    /// Maps a list of the domain's account and of `kind.listKind` to the domain (`.conflict` if mapped).
    func createSIPMapping(domainSid: String, kind: SIPMappingKind, listSid: String) throws(StoreError) -> SIPDomainMapping
    /// The domain's mappings of `kind`, oldest first.
    func sipMappings(domainSid: String, kind: SIPMappingKind) throws(StoreError) -> [SIPDomainMapping]
    func deleteSIPMapping(domainSid: String, kind: SIPMappingKind, listSid: String) throws(StoreError) -> Bool

    /// Every address range of every account's IP access control lists (for trunks' source checks).
    func allIPAddresses() throws(StoreError) -> [SIPIPAddress]
}

/// What a SIP request authenticates as.
public enum SIPIdentity: Sendable, Equatable {
    /// A Plivo-style endpoint; its calls run `endpoint.applicationSid`.
    case endpoint(SIPEndpoint)
    /// A credential of a list mapped to `domain`; its calls run the domain's VoiceUrl.
    case credential(SIPCredential, domain: SIPDomain)
}

/// One username/secret a digest response may be checked against.
public struct SIPAuthCandidate: Sendable, Equatable {
    public let accountSid: String
    public let secret: SIPDigestSecret
    public let identity: SIPIdentity

    public init(accountSid: String, secret: SIPDigestSecret, identity: SIPIdentity) {
        self.accountSid = accountSid
        self.secret = secret
        self.identity = identity
    }
}

/// What a SIP request asks to do, which decides the domain mappings that apply.
public enum SIPAuthPurpose: Sendable {
    /// REGISTER: the domain's `Auth/Registrations` credential lists.
    case registration
    /// INVITE and other requests: the domain's `Auth/Calls` credential lists.
    case call
}

extension SIPCredentialStore {
    /// What the registrar asks for a digest response from `username` at `domain`: when `domain`
    /// names a SIP domain (case-insensitive), the credentials with that username in the lists its
    /// `purpose` mappings name (several lists may hold the name: try each); otherwise the Plivo
    /// endpoint with that username. Empty when nobody may authenticate so.
    public func sipAuthCandidates(username: String, domain: String, purpose: SIPAuthPurpose) throws(StoreError) -> [SIPAuthCandidate] {
        guard let found = try sipDomain(name: domain) else {
            guard let endpoint = try endpoint(username: username) else { return [] }
            return [SIPAuthCandidate(accountSid: endpoint.accountSid, secret: endpoint.secret, identity: .endpoint(endpoint))]
        }
        if purpose == .registration, !found.draft.sipRegistration { return [] }
        let kind: SIPMappingKind = purpose == .registration ? .registrationCredentials : .callCredentials
        var candidates: [SIPAuthCandidate] = []
        for mapping in try sipMappings(domainSid: found.sid, kind: kind) {
            for credential in try credentials(listSid: mapping.listSid) where credential.username == username {
                candidates.append(SIPAuthCandidate(accountSid: found.accountSid, secret: credential.secret,
                                                   identity: .credential(credential, domain: found)))
            }
        }
        return candidates
    }

    /// The SIP domain named `domain` if `address` lies in one of the IP access control lists
    /// mapped to its calls (`Auth/Calls/IpAccessControlListMappings`); nil otherwise.
    public func sipDomainAdmitting(address: String, domain: String) throws(StoreError) -> SIPDomain? {
        guard IPAddressRange.parse(address) != nil, let found = try sipDomain(name: domain) else { return nil }
        for mapping in try sipMappings(domainSid: found.sid, kind: .callIPAccessControl) {
            if try ipAddresses(listSid: mapping.listSid).contains(where: { $0.range?.contains(address) == true }) {
                return found
            }
        }
        return nil
    }

    /// The IP access control lists (of any account) with a range containing `address`: the trunks
    /// a request from it may come through. Oldest list first.
    public func ipAccessControlLists(containing address: String) throws(StoreError) -> [SIPList] {
        guard IPAddressRange.parse(address) != nil else { return [] }
        var seen = Set<String>()
        var lists: [SIPList] = []
        for entry in try allIPAddresses() where entry.range?.contains(address) == true && !seen.contains(entry.listSid) {
            seen.insert(entry.listSid)
            if let list = try sipList(sid: entry.listSid) { lists.append(list) }
        }
        return lists.sorted { $0.createdAt < $1.createdAt }
    }
}
