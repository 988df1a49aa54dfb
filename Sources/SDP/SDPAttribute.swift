/// One `a=` line: `a=<name>` or `a=<name>:<value>` (RFC 8866 §5.13).
///
/// The text is kept as received so unknown attributes, and known ones written in an unusual but
/// valid way (lowercase fingerprint hex, Chromium's `msid-semantic: WMS`), serialize unchanged.
/// ``typed`` decodes the WebRTC attributes; build one from a typed value with ``init(_:)``.
public struct SDPAttribute: Sendable, Hashable, CustomStringConvertible {
    /// The attribute name, e.g. `rtpmap`; never contains `:`.
    public var name: String
    /// The text after the first `:`, or nil for a property attribute such as `rtcp-mux`.
    public var value: String?

    /// Creates an attribute from raw text.
    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// Creates the canonical attribute for a typed value.
    public init(_ typed: SDPAttributeValue) {
        self = typed.attribute
    }

    /// The typed value; `.other` for unknown names and for known ones whose value is malformed
    /// (the parser rejects the latter, so this only happens for attributes built by hand).
    public var typed: SDPAttributeValue {
        (try? SDPAttributeValue(name: name, value: value)) ?? .other(name: name, value: value)
    }

    /// The line without its CRLF, e.g. `a=mid:0`.
    public var description: String {
        value.map { "a=\(name):\($0)" } ?? "a=\(name)"
    }
}

/// The typed form of the attributes WebRTC endpoints exchange (RFC 8829 JSEP §5). Attributes not
/// listed here, including `simulcast` (RFC 8853) and `rid` (RFC 8851), are `.other`.
public enum SDPAttributeValue: Sendable, Hashable {
    /// `group` (RFC 5888 §5), e.g. `BUNDLE 0 1 2` (RFC 8843 §7).
    case group(SDPGroup)
    /// `mid`: the media stream identification tag (RFC 5888 §4).
    case mid(String)
    /// `rtcp-mux` (RFC 5761 §5.1.1).
    case rtcpMux
    /// `rtcp-rsize` (RFC 5506 §5).
    case rtcpReducedSize
    /// `ice-ufrag` (RFC 8839 §5.4).
    case iceUfrag(String)
    /// `ice-pwd` (RFC 8839 §5.4).
    case icePwd(String)
    /// `ice-options`, e.g. `trickle` (RFC 8839 §5.6, RFC 8840 §4).
    case iceOptions([String])
    /// `ice-lite` (RFC 8839 §5.3).
    case iceLite
    /// `fingerprint` (RFC 8122 §5).
    case fingerprint(SDPFingerprint)
    /// `setup` (RFC 4145 §4, RFC 8842 §3).
    case setup(SDPSetupRole)
    /// `rtpmap` (RFC 8866 §6.6).
    case rtpmap(SDPRTPMap)
    /// `fmtp` (RFC 8866 §6.15).
    case fmtp(SDPFormatParameters)
    /// `rtcp-fb` (RFC 4585 §4.2).
    case rtcpFeedback(SDPRTCPFeedback)
    /// `extmap` (RFC 8285 §8).
    case extmap(SDPExtmap)
    /// `ssrc` (RFC 5576 §4.1).
    case ssrc(SDPSSRCAttribute)
    /// `ssrc-group` (RFC 5576 §4.2).
    case ssrcGroup(SDPSSRCGroup)
    /// `msid` (RFC 8830 §2).
    case msid(SDPMSID)
    /// `msid-semantic` (draft-ietf-mmusic-msid; still sent by Chromium and aiortc).
    case msidSemantic(SDPMSIDSemantic)
    /// `candidate` (RFC 8839 §5.1).
    case candidate(SDPCandidate)
    /// `end-of-candidates` (RFC 8840 §8.2).
    case endOfCandidates
    /// `sendrecv`, `sendonly`, `recvonly` or `inactive` (RFC 8866 §6.7).
    case direction(SDPDirection)
    /// `sctp-port` (RFC 8841 §5).
    case sctpPort(UInt16)
    /// `max-message-size` in bytes; 0 means no limit (RFC 8841 §6).
    case maxMessageSize(UInt64)
    /// `rtcp` (RFC 3605 §2.1).
    case rtcp(SDPRTCPAttribute)
    /// `extmap-allow-mixed` (RFC 8285 §6).
    case extmapAllowMixed
    /// Any other attribute, kept verbatim.
    case other(name: String, value: String?)

    /// Decodes the attribute `name` with `value`; unknown names give `.other`.
    /// - Throws: `SDPParseError` with reason `.invalidAttributeValue(name)` when a known attribute's
    ///   value does not match its grammar (reported on line 1).
    public init(name: String, value: String?) throws(SDPParseError) {
        if let flag = Self.flags[name] {
            // Property attributes take no value; a stray value is tolerated, as browsers do.
            self = flag
            return
        }
        guard let value else {
            if Self.valued.contains(name) { throw .invalidValue(name) }
            self = .other(name: name, value: nil)
            return
        }
        let text = Substring(value)
        switch name {
        case "group": self = .group(try SDPGroup(value: text))
        case "mid": self = .mid(try Self.token(text, name))
        case "ice-ufrag": self = .iceUfrag(try Self.iceCredential(text, name, minLength: 4))
        case "ice-pwd": self = .icePwd(try Self.iceCredential(text, name, minLength: 22))
        case "ice-options":
            let options = SDPText.fields(text)
            guard !options.isEmpty else { throw .invalidValue(name) }
            self = .iceOptions(options.map(String.init))
        case "fingerprint": self = .fingerprint(try SDPFingerprint(value: text))
        case "setup":
            guard let role = SDPSetupRole(rawValue: String(SDPText.trimmed(text))) else { throw .invalidValue(name) }
            self = .setup(role)
        case "rtpmap": self = .rtpmap(try SDPRTPMap(value: text))
        case "fmtp": self = .fmtp(try SDPFormatParameters(value: text))
        case "rtcp-fb": self = .rtcpFeedback(try SDPRTCPFeedback(value: text))
        case "extmap": self = .extmap(try SDPExtmap(value: text))
        case "ssrc": self = .ssrc(try SDPSSRCAttribute(value: text))
        case "ssrc-group": self = .ssrcGroup(try SDPSSRCGroup(value: text))
        case "msid": self = .msid(try SDPMSID(value: text))
        case "msid-semantic": self = .msidSemantic(try SDPMSIDSemantic(value: text))
        case "candidate": self = .candidate(try SDPCandidate(value: text))
        case "sctp-port":
            guard let port = SDPText.decimal(SDPText.trimmed(text), as: UInt16.self) else { throw .invalidValue(name) }
            self = .sctpPort(port)
        case "max-message-size":
            guard let size = SDPText.decimal(SDPText.trimmed(text), as: UInt64.self) else { throw .invalidValue(name) }
            self = .maxMessageSize(size)
        case "rtcp": self = .rtcp(try SDPRTCPAttribute(value: text))
        default: self = .other(name: name, value: value)
        }
    }

    /// The canonical `a=` line for this value.
    public var attribute: SDPAttribute {
        switch self {
        case .group(let g): SDPAttribute(name: "group", value: g.sdpValue)
        case .mid(let mid): SDPAttribute(name: "mid", value: mid)
        case .rtcpMux: SDPAttribute(name: "rtcp-mux")
        case .rtcpReducedSize: SDPAttribute(name: "rtcp-rsize")
        case .iceUfrag(let u): SDPAttribute(name: "ice-ufrag", value: u)
        case .icePwd(let p): SDPAttribute(name: "ice-pwd", value: p)
        case .iceOptions(let o): SDPAttribute(name: "ice-options", value: o.joined(separator: " "))
        case .iceLite: SDPAttribute(name: "ice-lite")
        case .fingerprint(let f): SDPAttribute(name: "fingerprint", value: f.sdpValue)
        case .setup(let role): SDPAttribute(name: "setup", value: role.rawValue)
        case .rtpmap(let m): SDPAttribute(name: "rtpmap", value: m.sdpValue)
        case .fmtp(let f): SDPAttribute(name: "fmtp", value: f.sdpValue)
        case .rtcpFeedback(let f): SDPAttribute(name: "rtcp-fb", value: f.sdpValue)
        case .extmap(let e): SDPAttribute(name: "extmap", value: e.sdpValue)
        case .ssrc(let s): SDPAttribute(name: "ssrc", value: s.sdpValue)
        case .ssrcGroup(let g): SDPAttribute(name: "ssrc-group", value: g.sdpValue)
        case .msid(let m): SDPAttribute(name: "msid", value: m.sdpValue)
        case .msidSemantic(let m): SDPAttribute(name: "msid-semantic", value: m.sdpValue)
        case .candidate(let c): SDPAttribute(name: "candidate", value: c.sdpValue)
        case .endOfCandidates: SDPAttribute(name: "end-of-candidates")
        case .direction(let d): SDPAttribute(name: d.rawValue)
        case .sctpPort(let port): SDPAttribute(name: "sctp-port", value: String(port))
        case .maxMessageSize(let size): SDPAttribute(name: "max-message-size", value: String(size))
        case .rtcp(let r): SDPAttribute(name: "rtcp", value: r.sdpValue)
        case .extmapAllowMixed: SDPAttribute(name: "extmap-allow-mixed")
        case .other(let name, let value): SDPAttribute(name: name, value: value)
        }
    }

    private static let flags: [String: SDPAttributeValue] = [
        "rtcp-mux": .rtcpMux, "rtcp-rsize": .rtcpReducedSize, "ice-lite": .iceLite,
        "end-of-candidates": .endOfCandidates, "extmap-allow-mixed": .extmapAllowMixed,
        "sendrecv": .direction(.sendrecv), "sendonly": .direction(.sendonly),
        "recvonly": .direction(.recvonly), "inactive": .direction(.inactive),
    ]

    private static let valued: Set<String> = [
        "group", "mid", "ice-ufrag", "ice-pwd", "ice-options", "fingerprint", "setup", "rtpmap", "fmtp",
        "rtcp-fb", "extmap", "ssrc", "ssrc-group", "msid", "msid-semantic", "candidate", "sctp-port",
        "max-message-size", "rtcp",
    ]

    /// Whether `name` is decoded to a typed case (so the parser validates its value).
    static func isKnown(_ name: String) -> Bool { flags[name] != nil || valued.contains(name) }

    private static func token(_ text: Substring, _ name: String) throws(SDPParseError) -> String {
        let value = SDPText.trimmed(text)
        guard SDPText.isField(value) else { throw .invalidValue(name) }
        return String(value)
    }

    /// `ice-ufrag` is 4...256 and `ice-pwd` 22...256 `ice-char`s (RFC 8839 §5.4); Chromium
    /// enforces the same bounds.
    private static func iceCredential(_ text: Substring, _ name: String, minLength: Int) throws(SDPParseError) -> String {
        let value = SDPText.trimmed(text)
        guard (minLength...256).contains(value.utf8.count), SDPText.isICEChars(value) else { throw .invalidValue(name) }
        return String(value)
    }
}
