import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// `Domains` and their `Auth` mappings.
extension TwilioSIPRouter {
    func domains(_ c: Context) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, POST")
        if c.method == "POST" {
            guard c.parameters["DomainName"] != nil else { throw Self.failure(.sipDomainInvalid, "DomainName is required") }
            let draft = try Self.domainDraft(c, over: SIPDomainDraft(domainName: ""))
            let domain = try storeCall(c, code: .sipDomainInvalid) { () throws(StoreError) in
                try store.createSIPDomain(draft, accountSid: c.account.sid)
            }
            return Self.json(try domainJSON(c, domain), status: 201)
        }
        let all = try storeCall(c, code: .sipDomainValidation) { () throws(StoreError) in try store.sipDomains(accountSid: c.account.sid) }
        var records: [JSONValue] = []
        for domain in all { records.append(try domainJSON(c, domain)) }
        return try Self.page(c, key: "domains", records)
    }

    func domain(_ c: Context, _ found: SIPDomain) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, POST, DELETE")
        switch c.method {
        case "POST":
            var domain = found
            domain.draft = try Self.domainDraft(c, over: found.draft)
            let updated = try storeCall(c, code: .sipDomainInvalid) { () throws(StoreError) in try store.updateSIPDomain(domain) }
            return Self.json(try domainJSON(c, updated))
        case "DELETE":
            _ = try storeCall(c, code: .sipDomainValidation) { () throws(StoreError) in try store.deleteSIPDomain(sid: found.sid) }
            return .status(204)
        default:
            return Self.json(try domainJSON(c, found))
        }
    }

    func mappings(_ c: Context, _ domain: SIPDomain, _ kind: SIPMappingKind) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, POST")
        if c.method == "POST" {
            let name = kind == .callIPAccessControl ? "IpAccessControlListSid" : "CredentialListSid"
            guard let listSid = c.parameters[name], !listSid.isEmpty else { throw Self.failure(.sipDomainValidation, "\(name) is required") }
            let list = try findList(c, kind.listKind, listSid)
            let mapping = try storeCall(c, code: .sipDomainValidation) { () throws(StoreError) in
                try store.createSIPMapping(domainSid: domain.sid, kind: kind, listSid: list.sid)
            }
            return Self.json(SIPResourceJSON.mapping(mapping, list: list), status: 201)
        }
        let all = try storeCall(c, code: .sipDomainValidation) { () throws(StoreError) in
            try store.sipMappings(domainSid: domain.sid, kind: kind)
        }
        var records: [JSONValue] = []
        for mapping in all {
            guard let list = try storeCall(c, code: .sipDomainValidation, { () throws(StoreError) in try store.sipList(sid: mapping.listSid) })
            else { continue }
            records.append(SIPResourceJSON.mapping(mapping, list: list))
        }
        return try Self.page(c, key: "contents", records)
    }

    func mapping(_ c: Context, _ domain: SIPDomain, _ kind: SIPMappingKind, listSid: String) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(c, "GET, DELETE")
        let list = try findList(c, kind.listKind, listSid)
        guard let mapping = try storeCall(c, code: .sipDomainValidation, { () throws(StoreError) in
            try store.sipMappings(domainSid: domain.sid, kind: kind).first { $0.listSid == list.sid }
        }) else { throw .notFound(c.path) }
        if c.method == "DELETE" {
            _ = try storeCall(c, code: .sipDomainValidation) { () throws(StoreError) in
                try store.deleteSIPMapping(domainSid: domain.sid, kind: kind, listSid: list.sid)
            }
            return .status(204)
        }
        return Self.json(SIPResourceJSON.mapping(mapping, list: list))
    }

    /// The domain's JSON with its `auth_type` from its mappings.
    private func domainJSON(_ c: Context, _ domain: SIPDomain) throws(RESTFailure) -> JSONValue {
        let (credentials, acls) = try storeCall(c, code: .sipDomainValidation) { () throws(StoreError) -> (Int, Int) in
            let registrations = try store.sipMappings(domainSid: domain.sid, kind: .registrationCredentials).count
            let calls = try store.sipMappings(domainSid: domain.sid, kind: .callCredentials).count
            return (registrations + calls, try store.sipMappings(domainSid: domain.sid, kind: .callIPAccessControl).count)
        }
        return SIPResourceJSON.domain(domain, authTypes: (credentials > 0 ? ["CREDENTIAL_LIST"] : []) + (acls > 0 ? ["IP_ACL"] : []))
    }

    /// The draft with the request's parameters over `draft`: `DomainName` (21232 when malformed),
    /// URLs and methods (21231), `SipRegistration` and `Secure` (`true`/`false`).
    private static func domainDraft(_ c: Context, over draft: SIPDomainDraft) throws(RESTFailure) -> SIPDomainDraft {
        let p = c.parameters
        var d = draft
        if let name = p["DomainName"] {
            let lower = name.lowercased()
            if let reason = SIPInputRules.domainName(lower) { throw failure(.sipDomainInvalid, reason) }
            d.domainName = lower
        }
        if let name = p["FriendlyName"] {
            if !name.isEmpty, let reason = SIPInputRules.name(name, field: "FriendlyName", limit: 64) {
                throw failure(.sipDomainValidation, reason)
            }
            d.friendlyName = name
        }
        if p.contains("VoiceUrl") { d.voiceURL = try p.httpURL("VoiceUrl", code: .sipDomainValidation) }
        if p.contains("VoiceFallbackUrl") { d.voiceFallbackURL = try p.httpURL("VoiceFallbackUrl", code: .sipDomainValidation) }
        if p.contains("VoiceStatusCallbackUrl") {
            d.voiceStatusCallbackURL = try p.httpURL("VoiceStatusCallbackUrl", code: .sipDomainValidation)
        }
        d.voiceMethod = try p.httpMethod("VoiceMethod", fallback: d.voiceMethod, code: .sipDomainValidation)
        d.voiceFallbackMethod = try p.httpMethod("VoiceFallbackMethod", fallback: d.voiceFallbackMethod, code: .sipDomainValidation)
        d.voiceStatusCallbackMethod = try p.httpMethod("VoiceStatusCallbackMethod", fallback: d.voiceStatusCallbackMethod,
                                                       code: .sipDomainValidation)
        d.sipRegistration = try boolean(p, "SipRegistration", fallback: d.sipRegistration)
        d.secure = try boolean(p, "Secure", fallback: d.secure)
        return d
    }

    private static func boolean(_ p: RESTParameters, _ name: String, fallback: Bool) throws(RESTFailure) -> Bool {
        switch p[name]?.lowercased() {
        case nil, "": return fallback
        case "true": return true
        case "false": return false
        default: throw failure(.sipDomainValidation, "\(name) must be true or false")
        }
    }
}
