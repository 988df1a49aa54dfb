import ParleyCrypto

/// A Plivo-style SIP endpoint: a user that registers with a username and password and whose calls
/// run its application. `username` is the name asked for plus a numeric suffix, as Plivo's.
///
/// `description` leaves the digest secret out.
public struct SIPEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// Plivo's `endpoint_id`: 14 digits.
    public let id: String
    public let accountSid: String
    /// The SIP user name (unique on the server).
    public let username: String
    public var alias: String
    /// The application (`AP…`) its calls run, if any (Plivo's `app_id`).
    public var applicationSid: String?
    public var secret: SIPDigestSecret
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(id: String, accountSid: String, username: String, alias: String, applicationSid: String?,
                secret: SIPDigestSecret, createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.accountSid = accountSid
        self.username = username
        self.alias = alias
        self.applicationSid = applicationSid
        self.secret = secret
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var description: String { "SIPEndpoint(\(id), \(username), account \(accountSid))" }
}

/// What a SIP list holds: credentials (`CL…`) or IP addresses (`AL…`).
public enum SIPListKind: String, Sendable, CaseIterable {
    case credentials, ipAddresses = "ip-addresses"

    /// The SID prefix of lists of this kind.
    public var sidPrefix: String { self == .credentials ? "CL" : "AL" }
    /// The SID prefix of their entries.
    public var entrySidPrefix: String { self == .credentials ? "CR" : "IP" }
}

/// A Twilio `SIP/CredentialLists` or `SIP/IpAccessControlLists` resource.
public struct SIPList: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    public let kind: SIPListKind
    public var friendlyName: String
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, kind: SIPListKind, friendlyName: String, createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.kind = kind
        self.friendlyName = friendlyName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A username and digest secret in a credential list (Twilio's `Credentials`, `CR…`).
public struct SIPCredential: Sendable, Equatable, CustomStringConvertible {
    public let sid: String
    public let accountSid: String
    public let listSid: String
    /// Unique within its list.
    public let username: String
    public var secret: SIPDigestSecret
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, listSid: String, username: String, secret: SIPDigestSecret,
                createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.listSid = listSid
        self.username = username
        self.secret = secret
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var description: String { "SIPCredential(\(sid), \(username), list \(listSid))" }
}

/// An address range in an IP access control list (Twilio's `IpAddresses`, `IP…`).
public struct SIPIPAddress: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    public let listSid: String
    public var friendlyName: String
    /// The address as given (IPv4 or IPv6).
    public var address: String
    public var prefixLength: Int
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, listSid: String, friendlyName: String, address: String, prefixLength: Int,
                createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.listSid = listSid
        self.friendlyName = friendlyName
        self.address = address
        self.prefixLength = prefixLength
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The range it admits (nil only for a row that was written invalid).
    public var range: IPAddressRange? { IPAddressRange(address: address, prefixLength: prefixLength) }
}

/// The fields a client sets on a SIP domain.
public struct SIPDomainDraft: Sendable, Equatable {
    /// The host name SIP requests are addressed to (lowercase; unique on the server).
    public var domainName: String
    public var friendlyName: String
    public var voiceURL: String?
    public var voiceMethod: String
    public var voiceFallbackURL: String?
    public var voiceFallbackMethod: String
    public var voiceStatusCallbackURL: String?
    public var voiceStatusCallbackMethod: String
    /// Whether endpoints may register to it (Twilio's `SipRegistration`).
    public var sipRegistration: Bool
    /// Whether its calls need SRTP (Twilio's `Secure`).
    public var secure: Bool

    public init(domainName: String, friendlyName: String = "", voiceURL: String? = nil, voiceMethod: String = "POST",
                voiceFallbackURL: String? = nil, voiceFallbackMethod: String = "POST", voiceStatusCallbackURL: String? = nil,
                voiceStatusCallbackMethod: String = "POST", sipRegistration: Bool = false, secure: Bool = false) {
        self.domainName = domainName
        self.friendlyName = friendlyName
        self.voiceURL = voiceURL
        self.voiceMethod = voiceMethod
        self.voiceFallbackURL = voiceFallbackURL
        self.voiceFallbackMethod = voiceFallbackMethod
        self.voiceStatusCallbackURL = voiceStatusCallbackURL
        self.voiceStatusCallbackMethod = voiceStatusCallbackMethod
        self.sipRegistration = sipRegistration
        self.secure = secure
    }
}

/// A Twilio `SIP/Domains` resource (`SD…`): where SIP requests to `domainName` are authenticated
/// (through its mappings) and which TwiML they run.
public struct SIPDomain: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    public var draft: SIPDomainDraft
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, draft: SIPDomainDraft, createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.draft = draft
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var domainName: String { draft.domainName }
}

/// Which of a domain's `Auth` mappings: credential lists for REGISTER, credential lists for
/// INVITE and the rest, IP access control lists for calls.
public enum SIPMappingKind: String, Sendable, CaseIterable {
    case registrationCredentials = "registrations-credentials"
    case callCredentials = "calls-credentials"
    case callIPAccessControl = "calls-ip"

    /// The kind of list it maps.
    public var listKind: SIPListKind { self == .callIPAccessControl ? .ipAddresses : .credentials }
}

/// A list mapped to a domain. Its REST SID is the list's, as the vendor's.
public struct SIPDomainMapping: Sendable, Equatable {
    public let domainSid: String
    public let kind: SIPMappingKind
    public let listSid: String
    public let accountSid: String
    public let createdAt: Int64

    public init(domainSid: String, kind: SIPMappingKind, listSid: String, accountSid: String, createdAt: Int64) {
        self.domainSid = domainSid
        self.kind = kind
        self.listSid = listSid
        self.accountSid = accountSid
        self.createdAt = createdAt
    }
}

/// How many SIP resources one account (or list, or domain) may hold; creating one more is refused
/// with `StoreError.limitReached`.
public enum SIPCredentialLimits {
    public static let endpointsPerAccount = 1000
    public static let listsPerAccount = 1000
    public static let credentialsPerList = 1000
    public static let ipAddressesPerList = 100
    public static let domainsPerAccount = 100
    public static let mappingsPerDomain = 100
}

/// Plivo's endpoint naming: 14-digit IDs and usernames with a 12-digit suffix, drawn at random
/// (a store retries on the rare clash).
enum SIPEndpointNaming {
    static func newID() -> String { String(randomDigits(1, from: "123456789")) + randomDigits(13) }

    static func suffixed(_ username: String) -> String { username + randomDigits(12) }

    /// `count` digits from `alphabet`, uniformly (rejection sampling).
    private static func randomDigits(_ count: Int, from alphabet: String = "0123456789") -> String {
        let symbols = Array(alphabet)
        let bound = 256 - 256 % symbols.count
        var out = ""
        while out.count < count {
            for byte in SecureRandom.bytes(count) where out.count < count && Int(byte) < bound {
                out.append(symbols[Int(byte) % symbols.count])
            }
        }
        return out
    }

    /// How many times a store draws again after a clash before giving up with `.conflict`.
    static let attempts = 5
}
