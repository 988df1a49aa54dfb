/// A SIP request (RFC 3261 §7.1).
public struct SIPRequest: SIPMessageContent {
    public var method: SIPMethod
    /// The Request-URI.
    public var uri: SIPAnyURI
    /// `SIP/2.0`; another value parses, and ``validate()`` refuses it (505).
    public var version: String
    public var headers: SIPHeaders { didSet { headerCache = SIPHeaderCache() } }
    public var body: [UInt8]
    /// The typed headers parsed so far (`SIPHeaderCache`).
    public private(set) var headerCache: SIPHeaderCache? = SIPHeaderCache()

    public init(method: SIPMethod, uri: SIPAnyURI, version: String = "SIP/2.0", headers: SIPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.uri = uri
        self.version = version
        self.headers = headers
        self.body = body
    }

    public init(method: SIPMethod, uri: SIPURI, headers: SIPHeaders = [:], body: [UInt8] = []) {
        self.init(method: method, uri: .sip(uri), headers: headers, body: body)
    }

    /// `METHOD uri SIP/2.0`.
    public var startLine: String { "\(method) \(uri) \(version)" }

    public static func == (a: Self, b: Self) -> Bool {
        a.method == b.method && a.uri == b.uri && a.version == b.version && a.headers == b.headers && a.body == b.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(uri)
        hasher.combine(version)
        hasher.combine(headers)
        hasher.combine(body)
    }
}

/// A SIP response (RFC 3261 §7.2).
public struct SIPResponse: SIPMessageContent {
    /// 100…699.
    public var statusCode: Int
    public var reasonPhrase: String
    public var version: String
    public var headers: SIPHeaders { didSet { headerCache = SIPHeaderCache() } }
    public var body: [UInt8]
    /// The typed headers parsed so far (`SIPHeaderCache`).
    public private(set) var headerCache: SIPHeaderCache? = SIPHeaderCache()

    public init(statusCode: Int, reasonPhrase: String? = nil, version: String = "SIP/2.0", headers: SIPHeaders = [:], body: [UInt8] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase ?? SIPStatus.reasonPhrase(statusCode)
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// `SIP/2.0 code reason`.
    public var startLine: String { "\(version) \(statusCode) \(reasonPhrase)" }
    /// 1xx.
    public var isProvisional: Bool { statusCode < 200 }
    /// 2xx.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    public static func == (a: Self, b: Self) -> Bool {
        a.statusCode == b.statusCode && a.reasonPhrase == b.reasonPhrase && a.version == b.version && a.headers == b.headers
            && a.body == b.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(reasonPhrase)
        hasher.combine(version)
        hasher.combine(headers)
        hasher.combine(body)
    }
}

/// A request or a response, as a parser returns it.
public enum SIPMessage: SIPMessageContent {
    case request(SIPRequest)
    case response(SIPResponse)

    public var request: SIPRequest? {
        if case .request(let request) = self { request } else { nil }
    }

    public var response: SIPResponse? {
        if case .response(let response) = self { response } else { nil }
    }

    public var headers: SIPHeaders {
        get {
            switch self {
            case .request(let r): r.headers
            case .response(let r): r.headers
            }
        }
        set {
            switch self {
            case .request(var r): r.headers = newValue; self = .request(r)
            case .response(var r): r.headers = newValue; self = .response(r)
            }
        }
    }

    public var body: [UInt8] {
        get {
            switch self {
            case .request(let r): r.body
            case .response(let r): r.body
            }
        }
        set {
            switch self {
            case .request(var r): r.body = newValue; self = .request(r)
            case .response(var r): r.body = newValue; self = .response(r)
            }
        }
    }

    public var version: String {
        switch self {
        case .request(let r): r.version
        case .response(let r): r.version
        }
    }

    public var startLine: String {
        switch self {
        case .request(let r): r.startLine
        case .response(let r): r.startLine
        }
    }

    public var headerCache: SIPHeaderCache? {
        switch self {
        case .request(let r): r.headerCache
        case .response(let r): r.headerCache
        }
    }
}

/// What requests and responses share: a start line, header fields, a body; and the typed views
/// of the header fields a stack reads. Each typed property is nil (or empty) when the header is
/// absent or malformed; ``SIPMessageContent/validate()`` says which and why.
public protocol SIPMessageContent: Sendable, Hashable {
    var headers: SIPHeaders { get set }
    var body: [UInt8] { get set }
    var version: String { get }
    /// The Request-Line or Status-Line without CRLF.
    var startLine: String { get }
    /// Where typed headers parsed once are kept; nil: parse on every read.
    var headerCache: SIPHeaderCache? { get }
}

extension SIPMessageContent {
    /// The first value of header `name` (any spelling or compact form).
    public func header(_ name: String) -> String? { headers[name] }

    /// Every Via element, topmost first.
    public var vias: [SIPVia] { (try? parsedVias()) ?? [] }
    /// The topmost Via.
    public var via: SIPVia? {
        if let vias = headerCache?.parsedVias { return vias.first }
        return try? headers.first("Via", as: SIPVia.self)
    }
    public var from: SIPNameAddress? { try? parsedFrom() }
    public var to: SIPNameAddress? { try? parsedTo() }
    public var callID: String? { (try? parsedCallID())?.value }
    public var cseq: SIPCSeq? { try? parsedCSeq() }
    /// Max-Forwards, 0…255.
    public var maxForwards: UInt8? { (try? headers.first("Max-Forwards", as: SIPNumberHeader<UInt8>.self))?.value }
    public var contacts: [SIPContact] { (try? parsedContacts()) ?? [] }
    /// Expires in seconds (RFC 3261 §20.19).
    public var expires: UInt32? { (try? headers.first("Expires", as: SIPNumberHeader<UInt32>.self))?.value }
    /// Min-Expires (RFC 3261 §20.23).
    public var minExpires: UInt32? { (try? headers.first("Min-Expires", as: SIPNumberHeader<UInt32>.self))?.value }
    public var contentLength: Int? {
        (try? headers.first("Content-Length", as: SIPNumberHeader<UInt32>.self)).map { Int($0.value) }
    }
    public var contentType: SIPMediaType? { try? headers.first("Content-Type", as: SIPMediaType.self) }
    public var routes: [SIPNameAddress] { (try? headers.all("Route", as: SIPNameAddress.self)) ?? [] }
    public var recordRoutes: [SIPNameAddress] { (try? headers.all("Record-Route", as: SIPNameAddress.self)) ?? [] }
    /// Option tags of Require (RFC 3261 §20.32).
    public var require: [String] { tokens("Require") }
    public var proxyRequire: [String] { tokens("Proxy-Require") }
    public var supported: [String] { tokens("Supported") }
    public var unsupported: [String] { tokens("Unsupported") }
    /// Methods of Allow (RFC 3261 §20.5).
    public var allow: [SIPMethod] { tokens("Allow").compactMap { SIPMethod($0) } }
    /// RSeq (RFC 3262 §7.1).
    public var rseq: UInt32? { (try? headers.first("RSeq", as: SIPNumberHeader<UInt32>.self))?.value }
    public var rack: SIPRAck? { try? headers.first("RAck", as: SIPRAck.self) }
    /// Header fields named `X-…`.
    public var customHeaders: [SIPHeaderField] { headers.customFields }

    private func tokens(_ name: String) -> [String] {
        ((try? headers.all(name, as: SIPToken.self)) ?? []).map(\.token)
    }

    /// The body as text (SDP, plain text); invalid UTF-8 is replaced.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
