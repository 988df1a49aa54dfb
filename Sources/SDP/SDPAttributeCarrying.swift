/// Typed, read-only views of the `a=` lines of a session or media section, at that level only.
/// For values a media section inherits from the session, use the `SessionDescription` resolvers
/// such as ``SessionDescription/iceUfrag(for:)``.
public protocol SDPAttributeCarrying {
    /// The `a=` lines in order.
    var attributes: [SDPAttribute] { get }
}

extension SessionDescription: SDPAttributeCarrying {}
extension MediaDescription: SDPAttributeCarrying {}

extension SDPAttributeCarrying {
    /// The attributes called `name`, in order.
    public func attributes(named name: String) -> [SDPAttribute] {
        attributes.filter { $0.name == name }
    }

    /// Whether an attribute called `name` is present.
    public func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.name == name }
    }

    /// The value of the first attribute called `name` (nil if absent or valueless).
    public func attributeValue(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// Decodes every attribute called `name` with `extract`, skipping non-matching ones.
    private func decoded<T>(_ name: String, _ extract: (SDPAttributeValue) -> T?) -> [T] {
        attributes.compactMap { $0.name == name ? extract($0.typed) : nil }
    }

    /// `a=group` lines (RFC 5888 §5).
    public var groups: [SDPGroup] { decoded("group") { if case .group(let g) = $0 { g } else { nil } } }

    /// The mids of each `a=group:BUNDLE` (RFC 8843 §7), in order.
    public var bundleGroups: [[String]] { groups.filter { $0.semantics == "BUNDLE" }.map(\.mids) }

    /// `a=mid` (RFC 5888 §4).
    public var mid: String? { decoded("mid") { if case .mid(let m) = $0 { m } else { nil } }.first }

    /// The direction attribute at this level (RFC 8866 §6.7), nil when none is present.
    public var direction: SDPDirection? {
        attributes.lazy.compactMap { SDPDirection(rawValue: $0.name) }.first
    }

    /// `a=rtcp-mux` (RFC 5761 §5.1.1).
    public var rtcpMux: Bool { hasAttribute("rtcp-mux") }
    /// `a=rtcp-rsize` (RFC 5506 §5).
    public var rtcpReducedSize: Bool { hasAttribute("rtcp-rsize") }
    /// `a=ice-lite` (RFC 8839 §5.3), meaningful at session level.
    public var iceLite: Bool { hasAttribute("ice-lite") }
    /// `a=end-of-candidates` (RFC 8840 §8.2).
    public var endOfCandidates: Bool { hasAttribute("end-of-candidates") }
    /// `a=extmap-allow-mixed` (RFC 8285 §6).
    public var extmapAllowMixed: Bool { hasAttribute("extmap-allow-mixed") }

    /// `a=ice-ufrag` at this level (RFC 8839 §5.4).
    public var iceUfrag: String? { decoded("ice-ufrag") { if case .iceUfrag(let u) = $0 { u } else { nil } }.first }
    /// `a=ice-pwd` at this level (RFC 8839 §5.4).
    public var icePwd: String? { decoded("ice-pwd") { if case .icePwd(let p) = $0 { p } else { nil } }.first }
    /// `a=ice-options` tokens at this level (RFC 8839 §5.6), all lines combined.
    public var iceOptions: [String] {
        decoded("ice-options") { if case .iceOptions(let o) = $0 { o } else { nil } }.flatMap { $0 }
    }
    /// `a=fingerprint` lines at this level (RFC 8122 §5); there may be one per hash function.
    public var fingerprints: [SDPFingerprint] {
        decoded("fingerprint") { if case .fingerprint(let f) = $0 { f } else { nil } }
    }
    /// `a=setup` at this level (RFC 4145 §4).
    public var setup: SDPSetupRole? { decoded("setup") { if case .setup(let s) = $0 { s } else { nil } }.first }

    /// `a=rtpmap` lines (RFC 8866 §6.6).
    public var rtpMaps: [SDPRTPMap] { decoded("rtpmap") { if case .rtpmap(let m) = $0 { m } else { nil } } }
    /// `a=fmtp` lines (RFC 8866 §6.15).
    public var formatParameters: [SDPFormatParameters] {
        decoded("fmtp") { if case .fmtp(let f) = $0 { f } else { nil } }
    }
    /// `a=rtcp-fb` lines (RFC 4585 §4.2).
    public var rtcpFeedback: [SDPRTCPFeedback] {
        decoded("rtcp-fb") { if case .rtcpFeedback(let f) = $0 { f } else { nil } }
    }
    /// `a=extmap` lines (RFC 8285 §8).
    public var extmaps: [SDPExtmap] { decoded("extmap") { if case .extmap(let e) = $0 { e } else { nil } } }
    /// `a=ssrc` lines (RFC 5576 §4.1).
    public var ssrcAttributes: [SDPSSRCAttribute] { decoded("ssrc") { if case .ssrc(let s) = $0 { s } else { nil } } }
    /// `a=ssrc-group` lines (RFC 5576 §4.2).
    public var ssrcGroups: [SDPSSRCGroup] {
        decoded("ssrc-group") { if case .ssrcGroup(let g) = $0 { g } else { nil } }
    }
    /// The distinct SSRCs named by `a=ssrc` lines, in first-seen order.
    public var ssrcs: [UInt32] {
        var seen = Set<UInt32>()
        return ssrcAttributes.map(\.ssrc).filter { seen.insert($0).inserted }
    }
    /// `a=msid` lines (RFC 8830 §2).
    public var msids: [SDPMSID] { decoded("msid") { if case .msid(let m) = $0 { m } else { nil } } }
    /// `a=msid-semantic` (session level).
    public var msidSemantic: SDPMSIDSemantic? {
        decoded("msid-semantic") { if case .msidSemantic(let m) = $0 { m } else { nil } }.first
    }
    /// `a=candidate` lines (RFC 8839 §5.1).
    public var candidates: [SDPCandidate] {
        decoded("candidate") { if case .candidate(let c) = $0 { c } else { nil } }
    }
    /// `a=sctp-port` (RFC 8841 §5).
    public var sctpPort: UInt16? { decoded("sctp-port") { if case .sctpPort(let p) = $0 { p } else { nil } }.first }
    /// `a=max-message-size` (RFC 8841 §6).
    public var maxMessageSize: UInt64? {
        decoded("max-message-size") { if case .maxMessageSize(let s) = $0 { s } else { nil } }.first
    }
    /// `a=rtcp` (RFC 3605 §2.1).
    public var rtcp: SDPRTCPAttribute? { decoded("rtcp") { if case .rtcp(let r) = $0 { r } else { nil } }.first }

    /// The rtpmap for `payloadType`, if any.
    public func rtpMap(for payloadType: UInt8) -> SDPRTPMap? {
        rtpMaps.first { $0.payloadType == payloadType }
    }

    /// The fmtp for `payloadType`, if any.
    public func formatParameters(for payloadType: UInt8) -> SDPFormatParameters? {
        formatParameters.first { $0.payloadType == payloadType }
    }

    /// The rtcp-fb lines for `payloadType`, including `*` wildcards (RFC 4585 §4.2).
    public func rtcpFeedback(for payloadType: UInt8) -> [SDPRTCPFeedback] {
        rtcpFeedback.filter { $0.payloadType == nil || $0.payloadType == payloadType }
    }

    /// The first `rtx` payload type among `payloadTypes` at `clockRate` whose fmtp names
    /// `codecPayloadType` as its associated payload type (RFC 4588 §8.1: `apt=96`).
    public func retransmissionPayloadType(for codecPayloadType: UInt8, clockRate: UInt32, among payloadTypes: [UInt8]) -> UInt8? {
        payloadTypes.first { pt in
            guard pt != codecPayloadType, let map = rtpMap(for: pt), map.encodingName.lowercased() == "rtx",
                  map.clockRate == clockRate, let parameters = formatParameters(for: pt)?.parameterString else { return false }
            return parameters.split(separator: ";").contains { item in
                let pair = item.split(separator: "=", maxSplits: 1).map { String($0.filter { $0 != " " }) }
                return pair.count == 2 && pair[0] == "apt" && UInt8(pair[1]) == codecPayloadType
            }
        }
    }

    /// The first `red/48000` payload type among `payloadTypes` whose fmtp names only
    /// `codecPayloadType` as its blocks (RFC 2198 §5: `111/111`); an absent fmtp leaves the blocks
    /// unsaid, which is taken as the codec's.
    public func redundancyPayloadType(wrapping codecPayloadType: UInt8, among payloadTypes: [UInt8]) -> UInt8? {
        payloadTypes.first { pt in
            guard pt != codecPayloadType, let map = rtpMap(for: pt), map.encodingName.lowercased() == "red",
                  map.clockRate == 48_000 else { return false }
            guard let blocks = formatParameters(for: pt)?.parameterString else { return true }
            let types = blocks.split(separator: "/")
            return !types.isEmpty && types.allSatisfy { UInt8(String($0.filter { $0 != " " })) == codecPayloadType }
        }
    }
}
