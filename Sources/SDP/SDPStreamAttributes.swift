/// `a=group:<semantics> *(SP <mid>)` (RFC 5888 §5), e.g. `BUNDLE 0 1 2` (RFC 8843 §7).
public struct SDPGroup: Sendable, Hashable {
    /// `BUNDLE`, `LS`, `FID`, ...
    public var semantics: String
    /// The identification tags (`a=mid` values) in the group, in order.
    public var mids: [String]

    /// Creates a group.
    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    /// Parses the value after `a=group:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard let semantics = f.first else { throw .invalidValue("group") }
        self.init(semantics: String(semantics), mids: f.dropFirst().map(String.init))
    }

    var sdpValue: String { ([semantics] + mids).joined(separator: " ") }
}

/// `a=ssrc:<ssrc-id> <attribute>[:<value>]` (RFC 5576 §4.1), e.g. `3434661007 cname:RWE+jBTPdnOJgijF`.
public struct SDPSSRCAttribute: Sendable, Hashable {
    /// The synchronization source.
    public var ssrc: UInt32
    /// The source attribute name: `cname`, `msid`, ...
    public var attribute: String
    /// The text after the first `:`, which may contain spaces (`msid:<stream> <track>`).
    public var value: String?

    /// Creates a source attribute.
    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    /// Parses the value after `a=ssrc:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value, maxSplits: 1)
        guard f.count == 2, let ssrc = SDPText.decimal(f[0], as: UInt32.self) else { throw .invalidValue("ssrc") }
        let (name, attributeValue) = SDPText.splitOnce(SDPText.trimmed(f[1]), at: ":")
        guard SDPText.isField(name) else { throw .invalidValue("ssrc") }
        self.init(ssrc: ssrc, attribute: String(name), value: attributeValue.map(String.init))
    }

    var sdpValue: String { "\(ssrc) \(attribute)" + (value.map { ":\($0)" } ?? "") }
}

/// `a=ssrc-group:<semantics> *(SP <ssrc-id>)` (RFC 5576 §4.2), e.g. `FID 1267639214 3415444305`
/// pairing a media SSRC with its RTX SSRC (RFC 4588 §8).
public struct SDPSSRCGroup: Sendable, Hashable {
    /// `FID`, `FEC`, `SIM`, ...
    public var semantics: String
    /// The sources, in order.
    public var ssrcs: [UInt32]

    /// Creates a source group.
    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    /// Parses the value after `a=ssrc-group:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard let semantics = f.first else { throw .invalidValue("ssrc-group") }
        var ssrcs: [UInt32] = []
        for text in f.dropFirst() {
            guard let ssrc = SDPText.decimal(text, as: UInt32.self) else { throw .invalidValue("ssrc-group") }
            ssrcs.append(ssrc)
        }
        self.init(semantics: String(semantics), ssrcs: ssrcs)
    }

    var sdpValue: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830 §2): the MediaStream and track of an m-section.
public struct SDPMSID: Sendable, Hashable {
    /// The MediaStream id, or `-` for a track without a stream.
    public var streamID: String
    /// The application data: the MediaStreamTrack id in WebRTC.
    public var trackID: String?

    /// Creates an msid.
    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    /// Parses the value after `a=msid:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard (1...2).contains(f.count) else { throw .invalidValue("msid") }
        self.init(streamID: String(f[0]), trackID: f.count == 2 ? String(f[1]) : nil)
    }

    var sdpValue: String { streamID + (trackID.map { " \($0)" } ?? "") }
}

/// `a=msid-semantic:<semantic> *(SP <identifier>)`, e.g. `WMS *` (aiortc) or `WMS <stream id>`
/// (Chromium, which writes a space after the colon; it is tolerated when parsing).
public struct SDPMSIDSemantic: Sendable, Hashable {
    /// `WMS` in practice.
    public var semantic: String
    /// Stream ids, or `*`.
    public var identifiers: [String]

    /// Creates an msid-semantic.
    public init(semantic: String, identifiers: [String]) {
        self.semantic = semantic
        self.identifiers = identifiers
    }

    /// Parses the value after `a=msid-semantic:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard let semantic = f.first else { throw .invalidValue("msid-semantic") }
        self.init(semantic: String(semantic), identifiers: f.dropFirst().map(String.init))
    }

    var sdpValue: String { ([semantic] + identifiers).joined(separator: " ") }
}
