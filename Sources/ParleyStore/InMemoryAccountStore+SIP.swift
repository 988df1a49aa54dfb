import Synchronization
/// SIP credentials in memory: the twin of `SQLiteAccountStore+SIP`.
struct InMemorySIPState {
    var endpoints: [SIPEndpoint] = []
    var lists: [SIPList] = []
    var credentials: [SIPCredential] = []
    var ipAddresses: [SIPIPAddress] = []
    var domains: [SIPDomain] = []
    var mappings: [SIPDomainMapping] = []
}

extension InMemoryAccountStore: SIPCredentialStore {
    public func createEndpoint(accountSid: String, username: String, password: String, realm: String, alias: String,
                               applicationSid: String?) throws(StoreError) -> SIPEndpoint {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPEndpoint in
            try Self.requireAccount(accountSid, in: s)
            guard s.sip.endpoints.count(where: { $0.accountSid == accountSid }) < SIPCredentialLimits.endpointsPerAccount else {
                throw .limitReached("SIP endpoints of account \(accountSid)")
            }
            for _ in 0..<SIPEndpointNaming.attempts {
                let id = SIPEndpointNaming.newID(), name = SIPEndpointNaming.suffixed(username)
                guard !s.sip.endpoints.contains(where: { $0.id == id || $0.username == name }) else { continue }
                let endpoint = SIPEndpoint(id: id, accountSid: accountSid, username: name, alias: alias,
                                           applicationSid: applicationSid,
                                           secret: SIPDigestSecret(username: name, realm: realm, password: password),
                                           createdAt: time, updatedAt: time)
                s.sip.endpoints.append(endpoint)
                return endpoint
            }
            throw .conflict("SIP endpoint \(username)")
        }
    }

    public func endpoint(id: String) throws(StoreError) -> SIPEndpoint? {
        state.withLock { s in s.sip.endpoints.first { $0.id == id } }
    }

    public func endpoint(username: String) throws(StoreError) -> SIPEndpoint? {
        state.withLock { s in s.sip.endpoints.first { $0.username == username } }
    }

    public func endpoints(accountSid: String) throws(StoreError) -> [SIPEndpoint] {
        state.withLock { s in s.sip.endpoints.filter { $0.accountSid == accountSid } }
    }

    public func updateEndpoint(_ endpoint: SIPEndpoint) throws(StoreError) -> SIPEndpoint {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPEndpoint in
            guard let i = s.sip.endpoints.firstIndex(where: { $0.id == endpoint.id }) else { throw .notFound("SIP endpoint \(endpoint.id)") }
            s.sip.endpoints[i].alias = endpoint.alias
            s.sip.endpoints[i].applicationSid = endpoint.applicationSid
            s.sip.endpoints[i].secret = endpoint.secret
            s.sip.endpoints[i].updatedAt = time
            return s.sip.endpoints[i]
        }
    }

    public func deleteEndpoint(id: String) throws(StoreError) -> Bool {
        state.withLock { s in s.sip.endpoints.removeFirst { $0.id == id } }
    }

    // MARK: Lists and entries

    public func createSIPList(kind: SIPListKind, accountSid: String, friendlyName: String) throws(StoreError) -> SIPList {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPList in
            try Self.requireAccount(accountSid, in: s)
            guard s.sip.lists.count(where: { $0.accountSid == accountSid && $0.kind == kind }) < SIPCredentialLimits.listsPerAccount else {
                throw .limitReached("SIP \(kind.rawValue) lists of account \(accountSid)")
            }
            let list = SIPList(sid: SID.make(kind.sidPrefix), accountSid: accountSid, kind: kind, friendlyName: friendlyName,
                               createdAt: time, updatedAt: time)
            s.sip.lists.append(list)
            return list
        }
    }

    public func sipList(sid: String) throws(StoreError) -> SIPList? {
        state.withLock { s in s.sip.lists.first { $0.sid == sid } }
    }

    public func sipLists(kind: SIPListKind, accountSid: String) throws(StoreError) -> [SIPList] {
        state.withLock { s in s.sip.lists.filter { $0.kind == kind && $0.accountSid == accountSid } }
    }

    public func updateSIPList(_ list: SIPList) throws(StoreError) -> SIPList {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPList in
            guard let i = s.sip.lists.firstIndex(where: { $0.sid == list.sid }) else { throw .notFound("SIP list \(list.sid)") }
            s.sip.lists[i].friendlyName = list.friendlyName
            s.sip.lists[i].updatedAt = time
            return s.sip.lists[i]
        }
    }

    public func deleteSIPList(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            s.sip.credentials.removeAll { $0.listSid == sid }
            s.sip.ipAddresses.removeAll { $0.listSid == sid }
            s.sip.mappings.removeAll { $0.listSid == sid }
            return s.sip.lists.removeFirst { $0.sid == sid }
        }
    }

    public func createCredential(listSid: String, username: String, password: String, realm: String) throws(StoreError) -> SIPCredential {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPCredential in
            let list = try Self.requireList(listSid, .credentials, in: s)
            guard s.sip.credentials.count(where: { $0.listSid == listSid }) < SIPCredentialLimits.credentialsPerList else {
                throw .limitReached("credentials of list \(listSid)")
            }
            guard !s.sip.credentials.contains(where: { $0.listSid == listSid && $0.username == username }) else {
                throw .conflict("credential \(username)")
            }
            let credential = SIPCredential(sid: SID.make("CR"), accountSid: list.accountSid, listSid: listSid, username: username,
                                           secret: SIPDigestSecret(username: username, realm: realm, password: password),
                                           createdAt: time, updatedAt: time)
            s.sip.credentials.append(credential)
            return credential
        }
    }

    public func credential(sid: String) throws(StoreError) -> SIPCredential? {
        state.withLock { s in s.sip.credentials.first { $0.sid == sid } }
    }

    public func credentials(listSid: String) throws(StoreError) -> [SIPCredential] {
        state.withLock { s in s.sip.credentials.filter { $0.listSid == listSid } }
    }

    public func updateCredential(_ credential: SIPCredential) throws(StoreError) -> SIPCredential {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPCredential in
            guard let i = s.sip.credentials.firstIndex(where: { $0.sid == credential.sid }) else {
                throw .notFound("credential \(credential.sid)")
            }
            s.sip.credentials[i].secret = credential.secret
            s.sip.credentials[i].updatedAt = time
            return s.sip.credentials[i]
        }
    }

    public func deleteCredential(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in s.sip.credentials.removeFirst { $0.sid == sid } }
    }

    public func createIPAddress(listSid: String, friendlyName: String, address: String,
                                prefixLength: Int) throws(StoreError) -> SIPIPAddress {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPIPAddress in
            let list = try Self.requireList(listSid, .ipAddresses, in: s)
            guard s.sip.ipAddresses.count(where: { $0.listSid == listSid }) < SIPCredentialLimits.ipAddressesPerList else {
                throw .limitReached("IP addresses of list \(listSid)")
            }
            let entry = SIPIPAddress(sid: SID.make("IP"), accountSid: list.accountSid, listSid: listSid, friendlyName: friendlyName,
                                     address: address, prefixLength: prefixLength, createdAt: time, updatedAt: time)
            s.sip.ipAddresses.append(entry)
            return entry
        }
    }

    public func ipAddress(sid: String) throws(StoreError) -> SIPIPAddress? {
        state.withLock { s in s.sip.ipAddresses.first { $0.sid == sid } }
    }

    public func ipAddresses(listSid: String) throws(StoreError) -> [SIPIPAddress] {
        state.withLock { s in s.sip.ipAddresses.filter { $0.listSid == listSid } }
    }

    public func updateIPAddress(_ address: SIPIPAddress) throws(StoreError) -> SIPIPAddress {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPIPAddress in
            guard let i = s.sip.ipAddresses.firstIndex(where: { $0.sid == address.sid }) else {
                throw .notFound("IP address \(address.sid)")
            }
            s.sip.ipAddresses[i].friendlyName = address.friendlyName
            s.sip.ipAddresses[i].address = address.address
            s.sip.ipAddresses[i].prefixLength = address.prefixLength
            s.sip.ipAddresses[i].updatedAt = time
            return s.sip.ipAddresses[i]
        }
    }

    public func deleteIPAddress(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in s.sip.ipAddresses.removeFirst { $0.sid == sid } }
    }

    public func allIPAddresses() throws(StoreError) -> [SIPIPAddress] {
        state.withLock { $0.sip.ipAddresses }
    }

    // MARK: Domains and mappings

    public func createSIPDomain(_ draft: SIPDomainDraft, accountSid: String) throws(StoreError) -> SIPDomain {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPDomain in
            try Self.requireAccount(accountSid, in: s)
            guard s.sip.domains.count(where: { $0.accountSid == accountSid }) < SIPCredentialLimits.domainsPerAccount else {
                throw .limitReached("SIP domains of account \(accountSid)")
            }
            guard !s.sip.domains.contains(where: { $0.domainName == draft.domainName }) else {
                throw .conflict("SIP domain \(draft.domainName)")
            }
            let domain = SIPDomain(sid: SID.make("SD"), accountSid: accountSid, draft: draft, createdAt: time, updatedAt: time)
            s.sip.domains.append(domain)
            return domain
        }
    }

    public func sipDomain(sid: String) throws(StoreError) -> SIPDomain? {
        state.withLock { s in s.sip.domains.first { $0.sid == sid } }
    }

    public func sipDomain(name: String) throws(StoreError) -> SIPDomain? {
        let name = name.lowercased()
        return state.withLock { s in s.sip.domains.first { $0.domainName == name } }
    }

    public func sipDomains(accountSid: String) throws(StoreError) -> [SIPDomain] {
        state.withLock { s in s.sip.domains.filter { $0.accountSid == accountSid } }
    }

    public func updateSIPDomain(_ domain: SIPDomain) throws(StoreError) -> SIPDomain {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPDomain in
            guard let i = s.sip.domains.firstIndex(where: { $0.sid == domain.sid }) else { throw .notFound("SIP domain \(domain.sid)") }
            guard !s.sip.domains.contains(where: { $0.domainName == domain.domainName && $0.sid != domain.sid }) else {
                throw .conflict("SIP domain \(domain.domainName)")
            }
            s.sip.domains[i].draft = domain.draft
            s.sip.domains[i].updatedAt = time
            return s.sip.domains[i]
        }
    }

    public func deleteSIPDomain(sid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            s.sip.mappings.removeAll { $0.domainSid == sid }
            return s.sip.domains.removeFirst { $0.sid == sid }
        }
    }

    public func createSIPMapping(domainSid: String, kind: SIPMappingKind, listSid: String) throws(StoreError) -> SIPDomainMapping {
        let time = now()
        return try state.withLock { (s: inout State) throws(StoreError) -> SIPDomainMapping in
            guard let domain = s.sip.domains.first(where: { $0.sid == domainSid }) else { throw .notFound("SIP domain \(domainSid)") }
            let list = try Self.requireList(listSid, kind.listKind, in: s)
            guard list.accountSid == domain.accountSid else { throw .notFound("SIP list \(listSid)") }
            guard s.sip.mappings.count(where: { $0.domainSid == domainSid }) < SIPCredentialLimits.mappingsPerDomain else {
                throw .limitReached("mappings of SIP domain \(domainSid)")
            }
            guard !s.sip.mappings.contains(where: { $0.domainSid == domainSid && $0.kind == kind && $0.listSid == listSid }) else {
                throw .conflict("mapping of \(listSid)")
            }
            let mapping = SIPDomainMapping(domainSid: domainSid, kind: kind, listSid: listSid, accountSid: domain.accountSid,
                                           createdAt: time)
            s.sip.mappings.append(mapping)
            return mapping
        }
    }

    public func sipMappings(domainSid: String, kind: SIPMappingKind) throws(StoreError) -> [SIPDomainMapping] {
        state.withLock { s in s.sip.mappings.filter { $0.domainSid == domainSid && $0.kind == kind } }
    }

    public func deleteSIPMapping(domainSid: String, kind: SIPMappingKind, listSid: String) throws(StoreError) -> Bool {
        state.withLock { s in
            s.sip.mappings.removeFirst { $0.domainSid == domainSid && $0.kind == kind && $0.listSid == listSid }
        }
    }

    // MARK: Checks

    private static func requireAccount(_ sid: String, in s: State) throws(StoreError) {
        guard s.accounts.contains(where: { $0.sid == sid }) else { throw .notFound("account \(sid)") }
    }

    private static func requireList(_ sid: String, _ kind: SIPListKind, in s: State) throws(StoreError) -> SIPList {
        guard let list = s.sip.lists.first(where: { $0.sid == sid && $0.kind == kind }) else { throw .notFound("SIP list \(sid)") }
        return list
    }
}

extension Array {
    /// Removes the first element that `matches`; false if there was none.
    mutating func removeFirst(where matches: (Element) -> Bool) -> Bool {
        guard let i = firstIndex(where: matches) else { return false }
        remove(at: i)
        return true
    }
}
