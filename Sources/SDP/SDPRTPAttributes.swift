/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<encoding parameters>]` (RFC 8866 §6.6),
/// e.g. `111 opus/48000/2`.
public struct SDPRTPMap: Sendable, Hashable {
    /// The dynamic or static payload type, 0...127.
    public var payloadType: UInt8
    /// The encoding name as written, e.g. `opus`, `VP8`, `H264`, `rtx`, `telephone-event`.
    public var encodingName: String
    /// The RTP clock rate in Hz.
    public var clockRate: UInt32
    /// The encoding parameters: the channel count for audio (absent means 1).
    public var channels: UInt16?

    /// Creates an rtpmap.
    public init(payloadType: UInt8, encodingName: String, clockRate: UInt32, channels: UInt16? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    /// Parses the value after `a=rtpmap:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard f.count == 2, let pt = SDPText.decimal(f[0], as: UInt8.self), pt <= 127 else { throw .invalidValue("rtpmap") }
        let parts = f[1].unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map { Substring($0) }
        guard (2...3).contains(parts.count), !parts[0].isEmpty,
              let rate = SDPText.decimal(parts[1], as: UInt32.self) else { throw .invalidValue("rtpmap") }
        var channels: UInt16?
        if parts.count == 3 {
            guard let count = SDPText.decimal(parts[2], as: UInt16.self) else { throw .invalidValue("rtpmap") }
            channels = count
        }
        self.init(payloadType: pt, encodingName: String(parts[0]), clockRate: rate, channels: channels)
    }

    var sdpValue: String {
        "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }
}

/// `a=fmtp:<format> <format specific parameters>` (RFC 8866 §6.15), e.g.
/// `111 minptime=10;useinbandfec=1`. The parameter text is kept whole because its syntax belongs
/// to the codec; ``parameters`` splits the common `key=value;key=value` form.
public struct SDPFormatParameters: Sendable, Hashable {
    /// The format the parameters apply to: an RTP payload type in WebRTC.
    public var format: String
    /// The parameter text after the first space, e.g. `apt=96` or `111/111` (RFC 2198 RED).
    public var parameterString: String

    /// Creates format parameters for a payload type.
    public init(payloadType: UInt8, parameterString: String) {
        self.format = String(payloadType)
        self.parameterString = parameterString
    }

    /// Creates format parameters for an arbitrary format token.
    public init(format: String, parameterString: String) {
        self.format = format
        self.parameterString = parameterString
    }

    /// Parses the value after `a=fmtp:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value, maxSplits: 1)
        guard let format = f.first else { throw .invalidValue("fmtp") }
        self.init(format: String(format), parameterString: f.count > 1 ? String(SDPText.trimmed(f[1])) : "")
    }

    /// The format as an RTP payload type (0...127), if it is one.
    public var payloadType: UInt8? {
        SDPText.decimal(Substring(format), as: UInt8.self).flatMap { $0 <= 127 ? $0 : nil }
    }

    /// The `;`-separated parameters as ordered `(key, value)` pairs, whitespace around each trimmed;
    /// an item without `=` has a nil value (e.g. the `111/111` of RED).
    public var parameters: [(key: String, value: String?)] {
        parameterString.unicodeScalars.split(separator: ";").compactMap { item in
            let (key, value) = SDPText.splitOnce(SDPText.trimmed(Substring(item)), at: "=")
            let trimmedKey = SDPText.trimmed(key)
            guard !trimmedKey.isEmpty else { return nil }
            return (String(trimmedKey), value.map { String(SDPText.trimmed($0)) })
        }
    }

    /// The value of the first parameter named `key` (ASCII case-insensitively, as RFC 6184 and
    /// RFC 7587 parameter names are), or nil when absent or valueless.
    public func parameter(_ key: String) -> String? {
        let wanted = key.lowercased()
        return parameters.first { $0.key.lowercased() == wanted }?.value ?? nil
    }

    var sdpValue: String { parameterString.isEmpty ? format : "\(format) \(parameterString)" }
}

/// `a=rtcp-fb:<payload type or *> <type> [<parameters>]` (RFC 4585 §4.2), e.g. `96 nack pli`,
/// `111 transport-cc`, `* ccm fir`.
public struct SDPRTCPFeedback: Sendable, Hashable {
    /// The payload type, or nil for `*` (all payload types).
    public var payloadType: UInt8?
    /// The feedback type: `ack`, `nack`, `ccm`, `trr-int`, `goog-remb`, `transport-cc`, ...
    public var type: String
    /// The rest, e.g. `pli` for `nack pli` or `fir` for `ccm fir`.
    public var parameter: String?

    /// Creates a feedback line.
    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    /// Parses the value after `a=rtcp-fb:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value, maxSplits: 2)
        guard f.count >= 2 else { throw .invalidValue("rtcp-fb") }
        var pt: UInt8?
        if f[0] != "*" {
            guard let number = SDPText.decimal(f[0], as: UInt8.self), number <= 127 else { throw .invalidValue("rtcp-fb") }
            pt = number
        }
        let rest = f.count > 2 ? SDPText.trimmed(f[2]) : ""
        self.init(payloadType: pt, type: String(f[1]), parameter: rest.isEmpty ? nil : String(rest))
    }

    var sdpValue: String {
        let pt = payloadType.map(String.init) ?? "*"
        return "\(pt) \(type)" + (parameter.map { " \($0)" } ?? "")
    }
}

/// `a=extmap:<id>[/<direction>] <URI> [<attributes>]` (RFC 8285 §8), e.g.
/// `4 urn:ietf:params:rtp-hdrext:sdes:mid`.
public struct SDPExtmap: Sendable, Hashable {
    /// The local identifier: 1...14 for one-byte headers, up to 255 with two-byte headers, and
    /// 4096...4351 in offers that leave the choice to the answerer (RFC 8285 §5, §7).
    public var id: UInt16
    /// The direction, when restricted.
    public var direction: SDPDirection?
    /// The extension URI.
    public var uri: String
    /// Extension attributes text after the URI, if any.
    public var attributes: String?

    /// Creates an extmap.
    public init(id: UInt16, direction: SDPDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }

    /// Parses the value after `a=extmap:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value, maxSplits: 2)
        guard f.count >= 2 else { throw .invalidValue("extmap") }
        let (idText, directionText) = SDPText.splitOnce(f[0], at: "/")
        guard let id = SDPText.decimal(idText, as: UInt16.self), id >= 1 else { throw .invalidValue("extmap") }
        var direction: SDPDirection?
        if let directionText {
            guard let parsed = SDPDirection(rawValue: String(directionText)) else { throw .invalidValue("extmap") }
            direction = parsed
        }
        let rest = f.count > 2 ? SDPText.trimmed(f[2]) : ""
        self.init(id: id, direction: direction, uri: String(f[1]), attributes: rest.isEmpty ? nil : String(rest))
    }

    var sdpValue: String {
        var text = String(id)
        if let direction { text += "/\(direction.rawValue)" }
        text += " \(uri)"
        if let attributes { text += " \(attributes)" }
        return text
    }
}
