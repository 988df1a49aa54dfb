/// `o=`: the originator and session identifier (RFC 8866 §5.2).
///
/// JSEP (RFC 8829 §5.2.1) uses `-` as username, a random 63-bit session id, and increments the
/// version on each new offer or answer.
public struct SDPOrigin: Sendable, Hashable {
    /// The user's login, or `-`.
    public var username: String
    /// The numeric session id.
    public var sessionID: UInt64
    /// The numeric session version.
    public var sessionVersion: UInt64
    /// `IN` for Internet.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// The address of the machine that created the session (often a placeholder).
    public var unicastAddress: String

    /// Creates an origin; the defaults match JSEP's placeholders.
    public init(username: String = "-", sessionID: UInt64, sessionVersion: UInt64,
                networkType: String = "IN", addressType: String = "IP4", unicastAddress: String = "127.0.0.1") {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.unicastAddress = unicastAddress
    }

    init?(value: Substring) {
        let f = SDPText.fields(value)
        guard f.count == 6, let id = SDPText.decimal(f[1], as: UInt64.self),
              let version = SDPText.decimal(f[2], as: UInt64.self) else { return nil }
        self.init(username: String(f[0]), sessionID: id, sessionVersion: version,
                  networkType: String(f[3]), addressType: String(f[4]), unicastAddress: String(f[5]))
    }

    var sdpValue: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(unicastAddress)"
    }
}

/// `c=`: connection data (RFC 8866 §5.7), also the tail of `a=rtcp` (RFC 3605 §2.1).
public struct SDPConnection: Sendable, Hashable {
    /// `IN` for Internet.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// The address, possibly with a `/ttl` or `/count` suffix for multicast.
    public var address: String

    /// Creates connection data; defaults to `IN IP4`.
    public init(networkType: String = "IN", addressType: String = "IP4", address: String) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    init?(fields f: ArraySlice<Substring>) {
        guard f.count == 3 else { return nil }
        let i = f.startIndex
        self.init(networkType: String(f[i]), addressType: String(f[i + 1]), address: String(f[i + 2]))
    }

    var sdpValue: String { "\(networkType) \(addressType) \(address)" }
}

/// `b=`: a bandwidth limit in kilobits per second for `AS`/`CT`, bits per second for `TIAS`
/// (RFC 8866 §5.8, RFC 3890).
public struct SDPBandwidth: Sendable, Hashable {
    /// `AS`, `CT`, `TIAS` or an extension token.
    public var type: String
    /// The limit, in the unit the type defines.
    public var value: UInt64

    /// Creates a bandwidth line.
    public init(type: String, value: UInt64) {
        self.type = type
        self.value = value
    }

    init?(value text: Substring) {
        let (type, number) = SDPText.splitOnce(text, at: ":")
        guard SDPText.isField(type), let number, let value = SDPText.decimal(number, as: UInt64.self) else { return nil }
        self.init(type: String(type), value: value)
    }

    var sdpValue: String { "\(type):\(value)" }
}

/// `t=` with its `r=` lines (RFC 8866 §5.9, §5.10). WebRTC always uses `t=0 0` (unbounded).
public struct SDPTiming: Sendable, Hashable {
    /// Start time as decimal NTP seconds; 0 for unbounded.
    public var start: UInt64
    /// Stop time as decimal NTP seconds; 0 for unbounded.
    public var stop: UInt64
    /// The `r=` lines that follow this `t=`.
    public var repeats: [SDPRepeatTimes]

    /// Creates a timing; `SDPTiming()` is `t=0 0`.
    public init(start: UInt64 = 0, stop: UInt64 = 0, repeats: [SDPRepeatTimes] = []) {
        self.start = start
        self.stop = stop
        self.repeats = repeats
    }

    init?(value: Substring) {
        let f = SDPText.fields(value)
        guard f.count == 2, let start = SDPText.decimal(f[0], as: UInt64.self),
              let stop = SDPText.decimal(f[1], as: UInt64.self) else { return nil }
        self.init(start: start, stop: stop)
    }

    var sdpValue: String { "\(start) \(stop)" }
}

/// `r=`: repeat interval, active duration and offsets, each a `typed-time` such as `7d`, `3600`
/// or `1h` (RFC 8866 §5.10). Kept as text; WebRTC never repeats sessions.
public struct SDPRepeatTimes: Sendable, Hashable {
    /// The repeat interval.
    public var interval: String
    /// The active duration.
    public var activeDuration: String
    /// The offsets from the start time (at least one).
    public var offsets: [String]

    /// Creates repeat times; each value must be a `typed-time` to re-parse.
    public init(interval: String, activeDuration: String, offsets: [String]) {
        self.interval = interval
        self.activeDuration = activeDuration
        self.offsets = offsets
    }

    init?(value: Substring) {
        let f = SDPText.fields(value)
        guard f.count >= 3, f.allSatisfy({ Self.isTypedTime($0, signed: false) }) else { return nil }
        self.init(interval: String(f[0]), activeDuration: String(f[1]), offsets: f.dropFirst(2).map(String.init))
    }

    var sdpValue: String { ([interval, activeDuration] + offsets).joined(separator: " ") }

    /// `typed-time = 1*DIGIT [fixed-len-time-unit]`, optionally with a leading `-` for `z=`.
    static func isTypedTime(_ text: Substring, signed: Bool) -> Bool {
        var body = text
        if signed, body.first == "-" { body = body.dropFirst() }
        if let last = body.last, "dhms".contains(last) { body = body.dropLast() }
        return SDPText.decimal(body, as: UInt64.self) != nil
    }
}

/// One `z=` pair: at `time` (NTP seconds) the offset changes by `offset` (RFC 8866 §5.11).
public struct SDPTimeZoneAdjustment: Sendable, Hashable {
    /// When the adjustment takes effect, in NTP seconds.
    public var time: UInt64
    /// A signed `typed-time`, e.g. `-1h`.
    public var offset: String

    /// Creates an adjustment.
    public init(time: UInt64, offset: String) {
        self.time = time
        self.offset = offset
    }

    static func parseList(_ value: Substring) -> [SDPTimeZoneAdjustment]? {
        let f = SDPText.fields(value)
        guard !f.isEmpty, f.count % 2 == 0 else { return nil }
        var out: [SDPTimeZoneAdjustment] = []
        for i in stride(from: 0, to: f.count, by: 2) {
            guard let time = SDPText.decimal(f[i], as: UInt64.self),
                  SDPRepeatTimes.isTypedTime(f[i + 1], signed: true) else { return nil }
            out.append(SDPTimeZoneAdjustment(time: time, offset: String(f[i + 1])))
        }
        return out
    }

    static func sdpValue(_ list: [SDPTimeZoneAdjustment]) -> String {
        list.map { "\($0.time) \($0.offset)" }.joined(separator: " ")
    }
}
