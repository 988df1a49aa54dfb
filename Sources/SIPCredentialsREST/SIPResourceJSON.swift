import JSONWire
import ParleyStore
import PlatformCore

/// The SIP resources in the vendor's v2010 JSON shape (snake_case, RFC 2822 dates, `uri` relative
/// to the API root), with the fields the `twilio` library reads. Secrets never appear.
enum SIPResourceJSON {
    static func base(_ accountSid: String) -> String { "\(TwilioSIPRouter.apiRoot)\(accountSid)/SIP" }

    static func collection(_ kind: SIPListKind) -> String { kind == .credentials ? "CredentialLists" : "IpAccessControlLists" }
    static func entries(_ kind: SIPListKind) -> String { kind == .credentials ? "Credentials" : "IpAddresses" }

    static func list(_ l: SIPList) -> JSONValue {
        let path = "\(base(l.accountSid))/\(collection(l.kind))/\(l.sid)"
        return .object([
            "account_sid": .string(l.accountSid),
            "date_created": .string(RESTTime.rfc2822(l.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(l.updatedAt)),
            "friendly_name": .string(l.friendlyName),
            "sid": .string(l.sid),
            "subresource_uris": .object([
                l.kind == .credentials ? "credentials" : "ip_addresses": .string("\(path)/\(entries(l.kind)).json"),
            ]),
            "uri": .string(path + ".json"),
        ])
    }

    static func credential(_ c: SIPCredential) -> JSONValue {
        .object([
            "account_sid": .string(c.accountSid),
            "credential_list_sid": .string(c.listSid),
            "date_created": .string(RESTTime.rfc2822(c.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(c.updatedAt)),
            "sid": .string(c.sid),
            "uri": .string("\(base(c.accountSid))/CredentialLists/\(c.listSid)/Credentials/\(c.sid).json"),
            "username": .string(c.username),
        ])
    }

    static func ipAddress(_ a: SIPIPAddress) -> JSONValue {
        .object([
            "account_sid": .string(a.accountSid),
            "cidr_prefix_length": .integer(Int64(a.prefixLength)),
            "date_created": .string(RESTTime.rfc2822(a.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(a.updatedAt)),
            "friendly_name": .string(a.friendlyName),
            "ip_access_control_list_sid": .string(a.listSid),
            "ip_address": .string(a.address),
            "sid": .string(a.sid),
            "uri": .string("\(base(a.accountSid))/IpAccessControlLists/\(a.listSid)/IpAddresses/\(a.sid).json"),
        ])
    }

    /// A domain; `authTypes` are `CREDENTIAL_LIST` and/or `IP_ACL`, as its mappings make them.
    static func domain(_ d: SIPDomain, authTypes: [String]) -> JSONValue {
        let path = "\(base(d.accountSid))/Domains/\(d.sid)"
        let draft = d.draft
        return .object([
            "account_sid": .string(d.accountSid),
            "api_version": .string("2010-04-01"),
            "auth_type": .string(authTypes.joined(separator: ",")),
            "date_created": .string(RESTTime.rfc2822(d.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(d.updatedAt)),
            "domain_name": .string(draft.domainName),
            "friendly_name": .string(draft.friendlyName),
            "sid": .string(d.sid),
            "uri": .string(path + ".json"),
            "voice_fallback_method": .string(draft.voiceFallbackMethod),
            "voice_fallback_url": optional(draft.voiceFallbackURL),
            "voice_method": .string(draft.voiceMethod),
            "voice_status_callback_method": .string(draft.voiceStatusCallbackMethod),
            "voice_status_callback_url": optional(draft.voiceStatusCallbackURL),
            "voice_url": optional(draft.voiceURL),
            "subresource_uris": .object([
                "ip_access_control_list_mappings": .string("\(path)/IpAccessControlListMappings.json"),
                "credential_list_mappings": .string("\(path)/CredentialListMappings.json"),
            ]),
            "sip_registration": .bool(draft.sipRegistration),
            "emergency_calling_enabled": .bool(false),
            "secure": .bool(draft.secure),
            "byoc_trunk_sid": .null,
            "emergency_caller_sid": .null,
        ])
    }

    /// A domain's mapping: its SID and friendly name are the list's.
    static func mapping(_ m: SIPDomainMapping, list: SIPList) -> JSONValue {
        .object([
            "account_sid": .string(m.accountSid),
            "date_created": .string(RESTTime.rfc2822(m.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(m.createdAt)),
            "friendly_name": .string(list.friendlyName),
            "sid": .string(list.sid),
        ])
    }

    private static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
}
