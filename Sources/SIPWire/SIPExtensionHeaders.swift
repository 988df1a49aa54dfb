import WireKit

/// `Session-Expires` (RFC 4028 §4): the session interval in seconds and who refreshes.
public struct SIPSessionExpires: SIPHeaderValue {
    public enum Refresher: String, Sendable, Hashable {
        case uac, uas
    }

    public var seconds: UInt32
    public var refresher: Refresher?
    /// Other parameters, as received.
    public var parameters: [SIPParameter]

    public init(seconds: UInt32, refresher: Refresher? = nil, parameters: [SIPParameter] = []) {
        self.seconds = seconds
        self.refresher = refresher
        self.parameters = parameters
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        let number = try SIPNumberHeader<UInt32>(parsing: text, header: header)
        seconds = number.value
        var parameters = number.parameters
        if let value = parameters.value("refresher") {
            guard let refresher = Refresher(rawValue: SIPCharacters.lowercased(value)) else { throw .invalidHeader(name: header) }
            self.refresher = refresher
            parameters.remove("refresher")
        }
        self.parameters = parameters
    }

    public var headerValue: String {
        String(seconds) + (refresher.map { ";refresher=\($0.rawValue)" } ?? "") + parameters.headerText
    }
}

/// `Event` (RFC 6665 §8.2.1): the event package (`reg`, `dialog`, `presence`, `refer`,
/// `message-summary`, with optional `.template`s) and its `id`.
public struct SIPEvent: SIPHeaderValue {
    public var package: String
    public var parameters: [SIPParameter]

    public init(package: String, id: String? = nil, parameters: [SIPParameter] = []) {
        self.package = package
        self.parameters = parameters
        if let id { self.parameters.set("id", id) }
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        let (package, parameters) = try SIPScanner.tokenAndParameters(text, header: header)
        self.package = package
        self.parameters = parameters
    }

    /// The `id` parameter.
    public var id: String? { parameters.value("id") }
    public var headerValue: String { package + parameters.headerText }
}

/// `Subscription-State` (RFC 6665 §8.2.3): `active`, `pending` or `terminated`, with expires,
/// reason and retry-after.
public struct SIPSubscriptionState: SIPHeaderValue {
    /// The state, lowercased (`active`, `pending`, `terminated`, or an extension).
    public var state: String
    public var parameters: [SIPParameter]

    public init(state: String, expires: UInt32? = nil, reason: String? = nil) {
        self.state = state
        parameters = []
        if let expires { parameters.set("expires", String(expires)) }
        if let reason { parameters.set("reason", reason) }
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        let (state, parameters) = try SIPScanner.tokenAndParameters(text, header: header)
        self.state = SIPCharacters.lowercased(state)
        self.parameters = parameters
    }

    public var expires: UInt32? { parameters.value("expires").flatMap { SIPCharacters.decimal($0, as: UInt32.self) } }
    public var reason: String? { parameters.value("reason") }
    public var retryAfter: UInt32? { parameters.value("retry-after").flatMap { SIPCharacters.decimal($0, as: UInt32.self) } }
    public var headerValue: String { state + parameters.headerText }
}

/// One `Reason` element (RFC 3326 §2): `SIP;cause=487;text="Request Terminated"` or
/// `Q.850;cause=16`.
public struct SIPReason: SIPHeaderValue {
    /// `SIP`, `Q.850` or another protocol token.
    public var protocolName: String
    public var parameters: [SIPParameter]

    public init(protocolName: String, cause: Int? = nil, text: String? = nil) {
        self.protocolName = protocolName
        parameters = []
        if let cause { parameters.set("cause", String(cause)) }
        if let text { parameters.set("text", SIPQuoting.quote(text)) }
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        let (name, parameters) = try SIPScanner.tokenAndParameters(text, header: header)
        protocolName = name
        self.parameters = parameters
    }

    public var cause: Int? { parameters.value("cause").flatMap { SIPCharacters.decimal($0, as: UInt16.self) }.map(Int.init) }
    public var text: String? { parameters.value("text") }
    public var headerValue: String { protocolName + parameters.headerText }
}

/// `Date` (RFC 3261 §20.17): an RFC 1123 date that must be in GMT, e.g.
/// `Sat, 13 Nov 2010 23:29:00 GMT` (RFC 4475 §3.1.2.12 shows `EST`, which is refused).
public struct SIPDate: SIPHeaderValue {
    public var text: String

    public init(parsing text: String, header: String) throws(SIPParseError) {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].hasSuffix(","), CivilTime.weekdayNames.contains(String(fields[0].dropLast())), fields[1].utf8.count == 2,
              SIPCharacters.decimal(fields[1], as: UInt8.self).map({ (1...31).contains($0) }) == true,
              CivilTime.months.contains(String(fields[2])), fields[3].utf8.count == 4, SIPCharacters.decimal(fields[3], as: UInt16.self) != nil,
              Self.isTime(fields[4]), fields[5] == "GMT" else { throw .invalidHeader(name: header) }
        self.text = text
    }

    private static func isTime(_ text: Substring) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let limits: [UInt8] = [23, 59, 60]
        return parts.count == 3 && zip(parts, limits).allSatisfy { part, limit in
            part.utf8.count == 2 && SIPCharacters.decimal(part, as: UInt8.self).map { $0 <= limit } == true
        }
    }

    /// The Date value for `seconds` since 1970-01-01 UTC.
    public init(secondsSince1970 seconds: Int64) { text = CivilTime.rfc1123(seconds) + " GMT" }

    public var headerValue: String { text }
}

extension SIPMessageContent {
    /// Session-Expires (compact `x`), RFC 4028 §4.
    public var sessionExpires: SIPSessionExpires? { try? headers.first("Session-Expires", as: SIPSessionExpires.self) }
    /// Min-SE in seconds, RFC 4028 §5.
    public var minSE: UInt32? { (try? headers.first("Min-SE", as: SIPNumberHeader<UInt32>.self))?.value }
    /// Event (compact `o`), RFC 6665 §8.2.1.
    public var event: SIPEvent? { try? headers.first("Event", as: SIPEvent.self) }
    public var subscriptionState: SIPSubscriptionState? { try? headers.first("Subscription-State", as: SIPSubscriptionState.self) }
    /// Every Reason element, RFC 3326.
    public var reasons: [SIPReason] { (try? headers.all("Reason", as: SIPReason.self)) ?? [] }
    /// Digest challenges of WWW-Authenticate (a 401 may offer several, e.g. SHA-256 and MD5).
    public var wwwAuthenticate: [SIPDigestChallenge] { digest("WWW-Authenticate") }
    public var proxyAuthenticate: [SIPDigestChallenge] { digest("Proxy-Authenticate") }
    /// Digest credentials of Authorization (non-Digest schemes are left out).
    public var authorization: [SIPDigestCredentials] { digest("Authorization") }
    public var proxyAuthorization: [SIPDigestCredentials] { digest("Proxy-Authorization") }

    private func digest<T: SIPHeaderValue>(_ name: String) -> [T] {
        headers.values(name).compactMap { try? T(parsing: $0, header: name) }
    }
}
