/// Header field names: compact forms, canonical spellings, and which headers are comma lists.
public enum SIPHeaderName {
    /// The lowercase full name for `name`: compact forms expanded (RFC 3261 §7.3.3 and the IANA
    /// registry: `i`, `m`, `f`, `t`, `v`, `l`, `c`, `k`, `s`, `e`, `o`, `u`, `r`, `b`, `x`, `y`,
    /// `a`, `d`, `j`, `n`), otherwise `name` lowercased. Two names denote the same header exactly
    /// when their keys are equal.
    public static func key(_ name: some StringProtocol) -> String {
        let utf8 = name.utf8
        if utf8.count == 1, let first = utf8.first, let full = compact[SIPCharacters.lower(first)] { return full }
        return SIPCharacters.lowercased(name)
    }

    /// The canonical spelling of a header name, e.g. `v` → `Via`, `call-id` → `Call-ID`; an
    /// unknown name keeps its spelling.
    public static func canonical(_ name: some StringProtocol) -> String {
        canonicalSpellings[key(name)] ?? String(name)
    }

    /// Whether the header's values form a comma-separated list that may be split into one value
    /// per element (RFC 3261 §7.3.1). Authorization-type headers, Date and single-valued headers
    /// are not, and neither are unknown ones (their commas may be data).
    public static func isList(_ name: some StringProtocol) -> Bool { listKeys.contains(key(name)) }

    /// Headers a message carries at most once (RFC 3261 §20; RFC 4475 §3.3.8, §3.3.9).
    static let singleKeys: Set<String> = [
        "call-id", "cseq", "from", "to", "max-forwards", "content-length", "content-type", "expires", "min-expires",
        "session-expires", "min-se", "rseq", "rack", "event", "subscription-state", "refer-to", "referred-by",
    ]

    private static let compact: [UInt8: String] = [
        UInt8(ascii: "a"): "accept-contact", UInt8(ascii: "b"): "referred-by", UInt8(ascii: "c"): "content-type",
        UInt8(ascii: "d"): "request-disposition", UInt8(ascii: "e"): "content-encoding", UInt8(ascii: "f"): "from",
        UInt8(ascii: "i"): "call-id", UInt8(ascii: "j"): "reject-contact", UInt8(ascii: "k"): "supported",
        UInt8(ascii: "l"): "content-length", UInt8(ascii: "m"): "contact", UInt8(ascii: "n"): "identity-info",
        UInt8(ascii: "o"): "event", UInt8(ascii: "r"): "refer-to", UInt8(ascii: "s"): "subject", UInt8(ascii: "t"): "to",
        UInt8(ascii: "u"): "allow-events", UInt8(ascii: "v"): "via", UInt8(ascii: "x"): "session-expires",
        UInt8(ascii: "y"): "identity",
    ]

    private static let canonicalSpellings: [String: String] = Dictionary(uniqueKeysWithValues: [
        "Accept", "Accept-Contact", "Accept-Encoding", "Accept-Language", "Alert-Info", "Allow", "Allow-Events",
        "Authentication-Info", "Authorization", "Call-ID", "Call-Info", "Contact", "Content-Disposition",
        "Content-Encoding", "Content-Language", "Content-Length", "Content-Type", "CSeq", "Date", "Error-Info", "Event",
        "Expires", "From", "History-Info", "Identity", "Identity-Info", "In-Reply-To", "Max-Forwards", "MIME-Version",
        "Min-Expires", "Min-SE", "Organization", "P-Asserted-Identity", "P-Preferred-Identity", "Path", "Priority",
        "Privacy", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Require", "RAck", "Reason", "Record-Route",
        "Refer-To", "Referred-By", "Reject-Contact", "Reply-To", "Request-Disposition", "Require", "Retry-After",
        "Route", "RSeq", "Server", "Service-Route", "Session-Expires", "SIP-ETag", "SIP-If-Match", "Subject",
        "Subscription-State", "Supported", "Timestamp", "To", "Unsupported", "User-Agent", "Via", "Warning",
        "WWW-Authenticate",
    ].map { (SIPCharacters.lowercased($0), $0) })

    static let listKeys: Set<String> = [
        "accept", "accept-contact", "accept-encoding", "accept-language", "alert-info", "allow", "allow-events",
        "call-info", "contact", "content-encoding", "content-language", "error-info", "history-info", "in-reply-to",
        "p-asserted-identity", "p-preferred-identity", "path", "proxy-require", "reason", "record-route",
        "reject-contact", "require", "route", "service-route", "supported", "unsupported", "via", "warning",
    ]
}
