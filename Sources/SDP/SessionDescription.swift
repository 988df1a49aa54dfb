/// A parsed SDP session description (RFC 8866), as exchanged by JSEP (RFC 8829) offers and answers.
///
/// Parse with ``init(parsing:limits:)`` and write back with ``serialized()``. Attributes are kept in
/// their original order and text, so a parsed description serializes to the same lines (with
/// CRLF endings); typed views of the WebRTC attributes are in ``SDPAttributeCarrying``, and the
/// media-then-session resolution of inheritable attributes in `SessionDescription+Resolution`.
/// `v=` is always `0` and `k=` lines are accepted but dropped (RFC 8866 §5.12 deprecates them).
public struct SessionDescription: Sendable, Hashable {
    /// `o=` (RFC 8866 §5.2).
    public var origin: SDPOrigin
    /// `s=` (RFC 8866 §5.3); JSEP uses `-`.
    public var sessionName: String
    /// `i=` at session level (RFC 8866 §5.4).
    public var information: String?
    /// `u=` (RFC 8866 §5.5).
    public var uri: String?
    /// `e=` lines (RFC 8866 §5.6).
    public var emails: [String]
    /// `p=` lines (RFC 8866 §5.6).
    public var phoneNumbers: [String]
    /// Session-level `c=` (RFC 8866 §5.7), the default for media sections without their own.
    public var connection: SDPConnection?
    /// Session-level `b=` lines (RFC 8866 §5.8).
    public var bandwidths: [SDPBandwidth]
    /// `t=` lines with their `r=` lines (RFC 8866 §5.9); at least one when serialized.
    public var timings: [SDPTiming]
    /// The `z=` adjustments (RFC 8866 §5.11), empty when there is no `z=` line.
    public var timeZoneAdjustments: [SDPTimeZoneAdjustment]
    /// Session-level `a=` lines in order (RFC 8866 §5.13).
    public var attributes: [SDPAttribute]
    /// The `m=` sections in order (RFC 8866 §5.14).
    public var media: [MediaDescription]

    /// Creates a description; the defaults give JSEP's `s=-` and `t=0 0`.
    public init(origin: SDPOrigin, sessionName: String = "-", information: String? = nil, uri: String? = nil,
                emails: [String] = [], phoneNumbers: [String] = [], connection: SDPConnection? = nil,
                bandwidths: [SDPBandwidth] = [], timings: [SDPTiming] = [SDPTiming()],
                timeZoneAdjustments: [SDPTimeZoneAdjustment] = [], attributes: [SDPAttribute] = [],
                media: [MediaDescription] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.information = information
        self.uri = uri
        self.emails = emails
        self.phoneNumbers = phoneNumbers
        self.connection = connection
        self.bandwidths = bandwidths
        self.timings = timings
        self.timeZoneAdjustments = timeZoneAdjustments
        self.attributes = attributes
        self.media = media
    }
}

/// One `m=` section and the lines under it (RFC 8866 §5.14).
public struct MediaDescription: Sendable, Hashable {
    /// `audio`, `video`, `application`, `text` or `message`.
    public var mediaType: String
    /// The transport port; 0 rejects the section (RFC 8829 §5.3.1). With BUNDLE, JSEP puts 9 in
    /// sections that are not the first of their group (RFC 8843 §7.1.3).
    public var port: UInt16
    /// The `/<number of ports>` suffix, if any.
    public var portCount: UInt16?
    /// The transport protocol, e.g. `UDP/TLS/RTP/SAVPF` or `UDP/DTLS/SCTP` (RFC 8866 §5.14, RFC 8841).
    public var proto: String
    /// The media formats: RTP payload types, or e.g. `webrtc-datachannel`.
    public var formats: [String]
    /// `i=` at media level.
    public var information: String?
    /// Media-level `c=` lines; none means the session-level one applies (RFC 8866 §5.7).
    public var connections: [SDPConnection]
    /// Media-level `b=` lines.
    public var bandwidths: [SDPBandwidth]
    /// Media-level `a=` lines in order.
    public var attributes: [SDPAttribute]

    /// Creates a media section.
    public init(mediaType: String, port: UInt16, portCount: UInt16? = nil, proto: String, formats: [String],
                information: String? = nil, connections: [SDPConnection] = [], bandwidths: [SDPBandwidth] = [],
                attributes: [SDPAttribute] = []) {
        self.mediaType = mediaType
        self.port = port
        self.portCount = portCount
        self.proto = proto
        self.formats = formats
        self.information = information
        self.connections = connections
        self.bandwidths = bandwidths
        self.attributes = attributes
    }

    /// The formats that are RTP payload types (0...127), in order; empty for non-RTP protos.
    public var payloadTypes: [UInt8] {
        guard proto.contains("RTP") else { return [] }
        return formats.compactMap { format in
            SDPText.decimal(Substring(format), as: UInt8.self).flatMap { $0 <= 127 ? $0 : nil }
        }
    }

    /// Whether the section is rejected or disabled (port 0 and no `bundle-only`; RFC 8843 §6).
    public var isRejected: Bool {
        port == 0 && !attributes.contains { $0.name == "bundle-only" }
    }

    var mediaLineValue: String {
        var line = "\(mediaType) \(port)"
        if let portCount { line += "/\(portCount)" }
        line += " \(proto)"
        for format in formats { line += " \(format)" }
        return line
    }
}
