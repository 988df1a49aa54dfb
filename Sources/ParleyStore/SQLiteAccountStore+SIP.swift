import Synchronization
/// SIP endpoints, lists (`CL…`/`AL…`) and their entries, domains (`SD…`) and mappings in their
/// tables. Each write is one transaction, limits counted inside it.
extension SQLiteAccountStore: SIPCredentialStore {
    public func createEndpoint(accountSid: String, username: String, password: String, realm: String, alias: String,
                               applicationSid: String?) throws(StoreError) -> SIPEndpoint {
        let time = now()
        return try write { (d) throws(StoreError) -> SIPEndpoint in
            try Self.requireAccount(d, accountSid)
            try SIPRows.requireRoom(d, "SELECT count(*) FROM sip_endpoints WHERE account_sid = ?1", [.text(accountSid)],
                                    limit: SIPCredentialLimits.endpointsPerAccount, "SIP endpoints of account \(accountSid)")
            for _ in 0..<SIPEndpointNaming.attempts {
                let id = SIPEndpointNaming.newID(), name = SIPEndpointNaming.suffixed(username)
                guard try d.query("SELECT 1 FROM sip_endpoints WHERE id = ?1 OR username = ?2", [.text(id), .text(name)]).isEmpty
                else { continue }
                let endpoint = SIPEndpoint(id: id, accountSid: accountSid, username: name, alias: alias, applicationSid: applicationSid,
                                           secret: SIPDigestSecret(username: name, realm: realm, password: password),
                                           createdAt: time, updatedAt: time)
                try d.execute("""
                    INSERT INTO sip_endpoints (id, account_sid, username, alias, application_sid, realm, ha1_md5, ha1_sha256,
                    created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
                    """, [.text(id), .text(accountSid), .text(name), .text(alias), VoiceRows.optional(applicationSid),
                          .text(endpoint.secret.realm), .text(endpoint.secret.ha1MD5), .text(endpoint.secret.ha1SHA256), .integer(time)])
                return endpoint
            }
            throw .conflict("SIP endpoint \(username)")
        }
    }

    public func endpoint(id: String) throws(StoreError) -> SIPEndpoint? {
        try read("\(SIPRows.endpointColumns) WHERE id = ?1", [.text(id)], SIPRows.endpoint).first
    }

    public func endpoint(username: String) throws(StoreError) -> SIPEndpoint? {
        try read("\(SIPRows.endpointColumns) WHERE username = ?1", [.text(username)], SIPRows.endpoint).first
    }

    public func endpoints(accountSid: String) throws(StoreError) -> [SIPEndpoint] {
        try read("\(SIPRows.endpointColumns) WHERE account_sid = ?1 ORDER BY created_at, rowid", [.text(accountSid)], SIPRows.endpoint)
    }

    public func updateEndpoint(_ e: SIPEndpoint) throws(StoreError) -> SIPEndpoint {
        try update("""
            UPDATE sip_endpoints SET alias = ?2, application_sid = ?3, realm = ?4, ha1_md5 = ?5, ha1_sha256 = ?6, updated_at = ?7
            WHERE id = ?1
            """, [.text(e.id), .text(e.alias), VoiceRows.optional(e.applicationSid), .text(e.secret.realm), .text(e.secret.ha1MD5),
                  .text(e.secret.ha1SHA256), .integer(now())],
                   reread: "\(SIPRows.endpointColumns) WHERE id = ?1", key: e.id, SIPRows.endpoint, what: "SIP endpoint")
    }

    public func deleteEndpoint(id: String) throws(StoreError) -> Bool {
        try delete(["DELETE FROM sip_endpoints WHERE id = ?1"], [.text(id)])
    }

    // MARK: Lists and entries

    public func createSIPList(kind: SIPListKind, accountSid: String, friendlyName: String) throws(StoreError) -> SIPList {
        let time = now()
        let list = SIPList(sid: SID.make(kind.sidPrefix), accountSid: accountSid, kind: kind, friendlyName: friendlyName,
                           createdAt: time, updatedAt: time)
        return try write { (d) throws(StoreError) -> SIPList in
            try Self.requireAccount(d, accountSid)
            try SIPRows.requireRoom(d, "SELECT count(*) FROM sip_lists WHERE account_sid = ?1 AND kind = ?2",
                                    [.text(accountSid), .text(kind.rawValue)], limit: SIPCredentialLimits.listsPerAccount,
                                    "SIP \(kind.rawValue) lists of account \(accountSid)")
            try d.execute("""
                INSERT INTO sip_lists (sid, account_sid, kind, friendly_name, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                """, [.text(list.sid), .text(accountSid), .text(kind.rawValue), .text(friendlyName), .integer(time)])
            return list
        }
    }

    public func sipList(sid: String) throws(StoreError) -> SIPList? {
        try read("\(SIPRows.listColumns) WHERE sid = ?1", [.text(sid)], SIPRows.list).first
    }

    public func sipLists(kind: SIPListKind, accountSid: String) throws(StoreError) -> [SIPList] {
        try read("\(SIPRows.listColumns) WHERE account_sid = ?1 AND kind = ?2 ORDER BY created_at, rowid",
                 [.text(accountSid), .text(kind.rawValue)], SIPRows.list)
    }

    public func updateSIPList(_ list: SIPList) throws(StoreError) -> SIPList {
        try update("UPDATE sip_lists SET friendly_name = ?2, updated_at = ?3 WHERE sid = ?1",
                   [.text(list.sid), .text(list.friendlyName), .integer(now())],
                   reread: "\(SIPRows.listColumns) WHERE sid = ?1", key: list.sid, SIPRows.list, what: "SIP list")
    }

    public func deleteSIPList(sid: String) throws(StoreError) -> Bool {
        try delete(["DELETE FROM sip_credentials WHERE list_sid = ?1", "DELETE FROM sip_ip_addresses WHERE list_sid = ?1",
                    "DELETE FROM sip_domain_mappings WHERE list_sid = ?1", "DELETE FROM sip_lists WHERE sid = ?1"], [.text(sid)])
    }

    public func createCredential(listSid: String, username: String, password: String, realm: String) throws(StoreError) -> SIPCredential {
        let time = now()
        return try write { (d) throws(StoreError) -> SIPCredential in
            let list = try Self.requireList(d, listSid, .credentials)
            try SIPRows.requireRoom(d, "SELECT count(*) FROM sip_credentials WHERE list_sid = ?1", [.text(listSid)],
                                    limit: SIPCredentialLimits.credentialsPerList, "credentials of list \(listSid)")
            let credential = SIPCredential(sid: SID.make("CR"), accountSid: list.accountSid, listSid: listSid, username: username,
                                           secret: SIPDigestSecret(username: username, realm: realm, password: password),
                                           createdAt: time, updatedAt: time)
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO sip_credentials (sid, account_sid, list_sid, username, realm, ha1_md5, ha1_sha256, created_at,
                    updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
                    """, [.text(credential.sid), .text(list.accountSid), .text(listSid), .text(username), .text(realm),
                          .text(credential.secret.ha1MD5), .text(credential.secret.ha1SHA256), .integer(time)])
            } catch {
                throw VoiceRows.mapInsertError(error, what: "credential \(username)", accountSid: list.accountSid)
            }
            return credential
        }
    }

    public func credential(sid: String) throws(StoreError) -> SIPCredential? {
        try read("\(SIPRows.credentialColumns) WHERE sid = ?1", [.text(sid)], SIPRows.credential).first
    }

    public func credentials(listSid: String) throws(StoreError) -> [SIPCredential] {
        try read("\(SIPRows.credentialColumns) WHERE list_sid = ?1 ORDER BY created_at, rowid", [.text(listSid)], SIPRows.credential)
    }

    public func updateCredential(_ c: SIPCredential) throws(StoreError) -> SIPCredential {
        try update("UPDATE sip_credentials SET realm = ?2, ha1_md5 = ?3, ha1_sha256 = ?4, updated_at = ?5 WHERE sid = ?1",
                   [.text(c.sid), .text(c.secret.realm), .text(c.secret.ha1MD5), .text(c.secret.ha1SHA256), .integer(now())],
                   reread: "\(SIPRows.credentialColumns) WHERE sid = ?1", key: c.sid, SIPRows.credential, what: "credential")
    }

    public func deleteCredential(sid: String) throws(StoreError) -> Bool {
        try delete(["DELETE FROM sip_credentials WHERE sid = ?1"], [.text(sid)])
    }

    public func createIPAddress(listSid: String, friendlyName: String, address: String,
                                prefixLength: Int) throws(StoreError) -> SIPIPAddress {
        let time = now()
        return try write { (d) throws(StoreError) -> SIPIPAddress in
            let list = try Self.requireList(d, listSid, .ipAddresses)
            try SIPRows.requireRoom(d, "SELECT count(*) FROM sip_ip_addresses WHERE list_sid = ?1", [.text(listSid)],
                                    limit: SIPCredentialLimits.ipAddressesPerList, "IP addresses of list \(listSid)")
            let entry = SIPIPAddress(sid: SID.make("IP"), accountSid: list.accountSid, listSid: listSid, friendlyName: friendlyName,
                                     address: address, prefixLength: prefixLength, createdAt: time, updatedAt: time)
            try d.execute("""
                INSERT INTO sip_ip_addresses (sid, account_sid, list_sid, friendly_name, address, prefix_length, created_at,
                updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
                """, [.text(entry.sid), .text(list.accountSid), .text(listSid), .text(friendlyName), .text(address),
                      .integer(Int64(prefixLength)), .integer(time)])
            return entry
        }
    }

    public func ipAddress(sid: String) throws(StoreError) -> SIPIPAddress? {
        try read("\(SIPRows.ipAddressColumns) WHERE sid = ?1", [.text(sid)], SIPRows.ipAddress).first
    }

    public func ipAddresses(listSid: String) throws(StoreError) -> [SIPIPAddress] {
        try read("\(SIPRows.ipAddressColumns) WHERE list_sid = ?1 ORDER BY created_at, rowid", [.text(listSid)], SIPRows.ipAddress)
    }

    public func updateIPAddress(_ a: SIPIPAddress) throws(StoreError) -> SIPIPAddress {
        try update("UPDATE sip_ip_addresses SET friendly_name = ?2, address = ?3, prefix_length = ?4, updated_at = ?5 WHERE sid = ?1",
                   [.text(a.sid), .text(a.friendlyName), .text(a.address), .integer(Int64(a.prefixLength)), .integer(now())],
                   reread: "\(SIPRows.ipAddressColumns) WHERE sid = ?1", key: a.sid, SIPRows.ipAddress, what: "IP address")
    }

    public func deleteIPAddress(sid: String) throws(StoreError) -> Bool {
        try delete(["DELETE FROM sip_ip_addresses WHERE sid = ?1"], [.text(sid)])
    }

    public func allIPAddresses() throws(StoreError) -> [SIPIPAddress] {
        try read("\(SIPRows.ipAddressColumns) ORDER BY created_at, rowid", [], SIPRows.ipAddress)
    }

    // MARK: Domains and mappings

    public func createSIPDomain(_ draft: SIPDomainDraft, accountSid: String) throws(StoreError) -> SIPDomain {
        let time = now()
        let domain = SIPDomain(sid: SID.make("SD"), accountSid: accountSid, draft: draft, createdAt: time, updatedAt: time)
        return try write { (d) throws(StoreError) -> SIPDomain in
            try Self.requireAccount(d, accountSid)
            try SIPRows.requireRoom(d, "SELECT count(*) FROM sip_domains WHERE account_sid = ?1", [.text(accountSid)],
                                    limit: SIPCredentialLimits.domainsPerAccount, "SIP domains of account \(accountSid)")
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO sip_domains (sid, domain_name, friendly_name, voice_url, voice_method, voice_fallback_url,
                    voice_fallback_method, voice_status_callback_url, voice_status_callback_method, sip_registration, secure,
                    account_sid, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)
                    """, SIPRows.domainValues(domain.sid, draft) + [.text(accountSid), .integer(time)])
            } catch {
                throw VoiceRows.mapInsertError(error, what: "SIP domain \(draft.domainName)", accountSid: accountSid)
            }
            return domain
        }
    }

    public func sipDomain(sid: String) throws(StoreError) -> SIPDomain? {
        try read("\(SIPRows.domainColumns) WHERE sid = ?1", [.text(sid)], SIPRows.domain).first
    }

    public func sipDomain(name: String) throws(StoreError) -> SIPDomain? {
        try read("\(SIPRows.domainColumns) WHERE domain_name = ?1", [.text(name.lowercased())], SIPRows.domain).first
    }

    public func sipDomains(accountSid: String) throws(StoreError) -> [SIPDomain] {
        try read("\(SIPRows.domainColumns) WHERE account_sid = ?1 ORDER BY created_at, rowid", [.text(accountSid)], SIPRows.domain)
    }

    public func updateSIPDomain(_ domain: SIPDomain) throws(StoreError) -> SIPDomain {
        do throws(StoreError) {
            return try update("""
                UPDATE sip_domains SET domain_name = ?2, friendly_name = ?3, voice_url = ?4, voice_method = ?5,
                voice_fallback_url = ?6, voice_fallback_method = ?7, voice_status_callback_url = ?8,
                voice_status_callback_method = ?9, sip_registration = ?10, secure = ?11, updated_at = ?12 WHERE sid = ?1
                """, SIPRows.domainValues(domain.sid, domain.draft) + [.integer(now())],
                   reread: "\(SIPRows.domainColumns) WHERE sid = ?1", key: domain.sid, SIPRows.domain, what: "SIP domain")
        } catch {
            throw VoiceRows.mapInsertError(error, what: "SIP domain \(domain.domainName)", accountSid: domain.accountSid)
        }
    }

    public func deleteSIPDomain(sid: String) throws(StoreError) -> Bool {
        try delete(["DELETE FROM sip_domain_mappings WHERE domain_sid = ?1", "DELETE FROM sip_domains WHERE sid = ?1"], [.text(sid)])
    }

    public func createSIPMapping(domainSid: String, kind: SIPMappingKind, listSid: String) throws(StoreError) -> SIPDomainMapping {
        let time = now()
        return try write { (d) throws(StoreError) -> SIPDomainMapping in
            guard let domain = try d.query("\(SIPRows.domainColumns) WHERE sid = ?1", [.text(domainSid)]).first.map(SIPRows.domain)
            else { throw .notFound("SIP domain \(domainSid)") }
            let list = try Self.requireList(d, listSid, kind.listKind)
            guard list.accountSid == domain.accountSid else { throw .notFound("SIP list \(listSid)") }
            try SIPRows.requireRoom(d, "SELECT count(*) FROM sip_domain_mappings WHERE domain_sid = ?1", [.text(domainSid)],
                                    limit: SIPCredentialLimits.mappingsPerDomain, "mappings of SIP domain \(domainSid)")
            let mapping = SIPDomainMapping(domainSid: domainSid, kind: kind, listSid: listSid, accountSid: domain.accountSid,
                                           createdAt: time)
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO sip_domain_mappings (domain_sid, kind, list_sid, account_sid, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                    """, [.text(domainSid), .text(kind.rawValue), .text(listSid), .text(domain.accountSid), .integer(time)])
            } catch {
                throw VoiceRows.mapInsertError(error, what: "mapping of \(listSid)", accountSid: domain.accountSid)
            }
            return mapping
        }
    }

    public func sipMappings(domainSid: String, kind: SIPMappingKind) throws(StoreError) -> [SIPDomainMapping] {
        try read("\(SIPRows.mappingColumns) WHERE domain_sid = ?1 AND kind = ?2 ORDER BY created_at, rowid",
                 [.text(domainSid), .text(kind.rawValue)], SIPRows.mapping)
    }

    public func deleteSIPMapping(domainSid: String, kind: SIPMappingKind, listSid: String) throws(StoreError) -> Bool {
        try delete(["DELETE FROM sip_domain_mappings WHERE domain_sid = ?1 AND kind = ?2 AND list_sid = ?3"],
                   [.text(domainSid), .text(kind.rawValue), .text(listSid)])
    }

    // MARK: Helpers

    private func write<T: Sendable>(_ body: @Sendable (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        try db.withLock { (d) throws(StoreError) -> T in try d.transaction(body) }
    }

    private func read<T: Sendable>(_ sql: String, _ values: [SQLValue], _ map: ([SQLValue]) -> T) throws(StoreError) -> [T] {
        try db.withLock { (d) throws(StoreError) -> [T] in try d.query(sql, values).map(map) }
    }

    /// Runs an UPDATE of the row keyed `key` (`?1`) and reads it back; `.notFound` if nothing changed.
    private func update<T: Sendable>(_ sql: String, _ values: [SQLValue], reread: String, key: String, _ map: ([SQLValue]) -> T,
                           what: String) throws(StoreError) -> T {
        try db.withLock { (d) throws(StoreError) -> T in
            try d.execute(sql, values)
            guard d.changes == 1, let row = try d.query(reread, [.text(key)]).first else { throw .notFound("\(what) \(key)") }
            return map(row)
        }
    }

    /// Runs the statements in one transaction; true if the last one deleted a row.
    private func delete(_ statements: [String], _ values: [SQLValue]) throws(StoreError) -> Bool {
        try write { (d) throws(StoreError) -> Bool in
            for sql in statements { try d.execute(sql, values) }
            return d.changes > 0
        }
    }

    private static func requireAccount(_ d: SQLiteDatabase, _ sid: String) throws(StoreError) {
        guard try d.query("SELECT 1 FROM accounts WHERE sid = ?1", [.text(sid)]).first != nil else { throw .notFound("account \(sid)") }
    }

    private static func requireList(_ d: SQLiteDatabase, _ sid: String, _ kind: SIPListKind) throws(StoreError) -> SIPList {
        guard let list = try d.query("\(SIPRows.listColumns) WHERE sid = ?1 AND kind = ?2", [.text(sid), .text(kind.rawValue)])
            .first.map(SIPRows.list) else { throw .notFound("SIP list \(sid)") }
        return list
    }
}
