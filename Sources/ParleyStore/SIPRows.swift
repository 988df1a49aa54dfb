/// Row ↔ model mapping for the SIP tables (`SQLiteAccountStore+SIP`).
enum SIPRows {
    static let endpointColumns = """
        SELECT id, account_sid, username, alias, application_sid, realm, ha1_md5, ha1_sha256, created_at, updated_at
        FROM sip_endpoints
        """

    static func endpoint(_ row: [SQLValue]) -> SIPEndpoint {
        SIPEndpoint(id: row[0].string ?? "", accountSid: row[1].string ?? "", username: row[2].string ?? "",
                    alias: row[3].string ?? "", applicationSid: row[4].string, secret: secret(row, from: 5),
                    createdAt: row[8].int64 ?? 0, updatedAt: row[9].int64 ?? 0)
    }

    static let listColumns = "SELECT sid, account_sid, kind, friendly_name, created_at, updated_at FROM sip_lists"

    static func list(_ row: [SQLValue]) -> SIPList {
        SIPList(sid: row[0].string ?? "", accountSid: row[1].string ?? "",
                kind: SIPListKind(rawValue: row[2].string ?? "") ?? .credentials, friendlyName: row[3].string ?? "",
                createdAt: row[4].int64 ?? 0, updatedAt: row[5].int64 ?? 0)
    }

    static let credentialColumns = """
        SELECT sid, account_sid, list_sid, username, realm, ha1_md5, ha1_sha256, created_at, updated_at FROM sip_credentials
        """

    static func credential(_ row: [SQLValue]) -> SIPCredential {
        SIPCredential(sid: row[0].string ?? "", accountSid: row[1].string ?? "", listSid: row[2].string ?? "",
                      username: row[3].string ?? "", secret: secret(row, from: 4), createdAt: row[7].int64 ?? 0,
                      updatedAt: row[8].int64 ?? 0)
    }

    static let ipAddressColumns = """
        SELECT sid, account_sid, list_sid, friendly_name, address, prefix_length, created_at, updated_at FROM sip_ip_addresses
        """

    static func ipAddress(_ row: [SQLValue]) -> SIPIPAddress {
        SIPIPAddress(sid: row[0].string ?? "", accountSid: row[1].string ?? "", listSid: row[2].string ?? "",
                     friendlyName: row[3].string ?? "", address: row[4].string ?? "", prefixLength: Int(row[5].int64 ?? 0),
                     createdAt: row[6].int64 ?? 0, updatedAt: row[7].int64 ?? 0)
    }

    static let domainColumns = """
        SELECT sid, account_sid, domain_name, friendly_name, voice_url, voice_method, voice_fallback_url, voice_fallback_method,
        voice_status_callback_url, voice_status_callback_method, sip_registration, secure, created_at, updated_at FROM sip_domains
        """

    static func domain(_ row: [SQLValue]) -> SIPDomain {
        let draft = SIPDomainDraft(domainName: row[2].string ?? "", friendlyName: row[3].string ?? "", voiceURL: row[4].string,
                                   voiceMethod: row[5].string ?? "POST", voiceFallbackURL: row[6].string,
                                   voiceFallbackMethod: row[7].string ?? "POST", voiceStatusCallbackURL: row[8].string,
                                   voiceStatusCallbackMethod: row[9].string ?? "POST", sipRegistration: (row[10].int64 ?? 0) != 0,
                                   secure: (row[11].int64 ?? 0) != 0)
        return SIPDomain(sid: row[0].string ?? "", accountSid: row[1].string ?? "", draft: draft, createdAt: row[12].int64 ?? 0,
                         updatedAt: row[13].int64 ?? 0)
    }

    /// A domain's draft bound as `?2…?12` after its SID (`?1`).
    static func domainValues(_ sid: String, _ d: SIPDomainDraft) -> [SQLValue] {
        [.text(sid), .text(d.domainName), .text(d.friendlyName), VoiceRows.optional(d.voiceURL), .text(d.voiceMethod),
         VoiceRows.optional(d.voiceFallbackURL), .text(d.voiceFallbackMethod), VoiceRows.optional(d.voiceStatusCallbackURL),
         .text(d.voiceStatusCallbackMethod), .integer(d.sipRegistration ? 1 : 0), .integer(d.secure ? 1 : 0)]
    }

    static let mappingColumns = "SELECT domain_sid, kind, list_sid, account_sid, created_at FROM sip_domain_mappings"

    static func mapping(_ row: [SQLValue]) -> SIPDomainMapping {
        SIPDomainMapping(domainSid: row[0].string ?? "", kind: SIPMappingKind(rawValue: row[1].string ?? "") ?? .callCredentials,
                         listSid: row[2].string ?? "", accountSid: row[3].string ?? "", createdAt: row[4].int64 ?? 0)
    }

    /// The realm and both hashes, from three columns starting at `index`.
    private static func secret(_ row: [SQLValue], from index: Int) -> SIPDigestSecret {
        SIPDigestSecret(realm: row[index].string ?? "", ha1MD5: row[index + 1].string ?? "", ha1SHA256: row[index + 2].string ?? "")
    }

    /// Throws `.limitReached(what)` when `countSQL` (bound to `value`) counts `limit` or more rows.
    static func requireRoom(_ d: SQLiteDatabase, _ countSQL: String, _ values: [SQLValue], limit: Int,
                            _ what: String) throws(StoreError) {
        let count = try d.query(countSQL, values).first?.first?.int64 ?? 0
        guard count < Int64(limit) else { throw .limitReached(what) }
    }
}
