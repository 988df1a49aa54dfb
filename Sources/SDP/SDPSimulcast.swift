/// `a=rid:<rid-id> SP <send|recv> [SP <restrictions>]` (RFC 8851 §10): one RTP stream of a
/// section, e.g. `h send pt=96;max-width=1280`. Chromium's simulcast offers carry `q send`,
/// `h send`, `f send`.
public struct SDPRID: Sendable, Hashable {
    public enum Direction: String, Sendable { case send, recv }

    /// `1*(ALPHA / DIGIT / "-" / "_")`, at most 255 characters here (RFC 8852 carries it in a
    /// header extension of at most 255 bytes).
    public var id: String
    public var direction: Direction
    /// `pt=` (RFC 8851 §4), the payload types the stream may use; empty means any.
    public var payloadTypes: [UInt8]
    /// The other restrictions (`max-width=1280`, `max-fps=30`, …) as name and optional value, in order.
    public var restrictions: [(name: String, value: String?)]

    public init(id: String, direction: Direction, payloadTypes: [UInt8] = [], restrictions: [(name: String, value: String?)] = []) {
        self.id = id
        self.direction = direction
        self.payloadTypes = payloadTypes
        self.restrictions = restrictions
    }

    /// Parses the value after `a=rid:`.
    public init(parsing value: String) throws(SDPParseError) {
        let f = SDPText.fields(Substring(value), maxSplits: 2)
        guard f.count >= 2, Self.isRIDIdentifier(f[0]), let direction = Direction(rawValue: String(f[1])) else {
            throw .invalidValue("rid")
        }
        var payloadTypes: [UInt8] = []
        var restrictions: [(name: String, value: String?)] = []
        if f.count == 3 {
            for item in f[2].unicodeScalars.split(separator: ";", omittingEmptySubsequences: false).map(Substring.init) {
                let (name, itemValue) = SDPText.splitOnce(item, at: "=")
                guard SDPText.isField(name), !name.utf8.contains(0x2C) else { throw .invalidValue("rid") }
                if name == "pt" {
                    guard payloadTypes.isEmpty, let list = itemValue else { throw .invalidValue("rid") }
                    for text in list.unicodeScalars.split(separator: ",", omittingEmptySubsequences: false) {
                        guard let pt = SDPText.decimal(Substring(text), as: UInt8.self), pt < 128 else { throw .invalidValue("rid") }
                        payloadTypes.append(pt)
                    }
                } else {
                    if let itemValue { guard SDPText.isField(itemValue), !itemValue.utf8.contains(0x3B) else { throw .invalidValue("rid") } }
                    restrictions.append((String(name), itemValue.map(String.init)))
                }
            }
        }
        self.init(id: String(f[0]), direction: direction, payloadTypes: payloadTypes, restrictions: restrictions)
    }

    /// The value after `a=rid:`.
    public var sdpValue: String {
        var items: [String] = []
        if !payloadTypes.isEmpty { items.append("pt=" + payloadTypes.map(String.init).joined(separator: ",")) }
        items += restrictions.map { r in r.value.map { "\(r.name)=\($0)" } ?? r.name }
        return "\(id) \(direction.rawValue)" + (items.isEmpty ? "" : " " + items.joined(separator: ";"))
    }

    /// `rid-id` (RFC 8851 §10): letters, digits, `-` and `_`; 1–255 characters.
    static func isRIDIdentifier(_ text: Substring) -> Bool {
        (1...255).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F
        }
    }

    public static func == (a: SDPRID, b: SDPRID) -> Bool {
        a.id == b.id && a.direction == b.direction && a.payloadTypes == b.payloadTypes
            && a.restrictions.map(\.name) == b.restrictions.map(\.name) && a.restrictions.map(\.value) == b.restrictions.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(direction)
        hasher.combine(payloadTypes)
    }
}

/// `a=simulcast:<send|recv> <list> [SP <recv|send> <list>]` (RFC 8853 §5.1), e.g.
/// `send q;h;f` or `send 1,~4;2;3 recv c`: in each direction, the simulcast streams in order
/// (`;`), each one of alternative rids (`,`), a `~` marking one paused.
public struct SDPSimulcast: Sendable, Hashable {
    /// One rid of a stream and whether it starts paused (`~`).
    public struct Alternative: Sendable, Hashable {
        public var rid: String
        public var paused: Bool

        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }
    }

    /// Each stream is a non-empty list of alternatives.
    public var send: [[Alternative]]
    public var receive: [[Alternative]]

    public init(send: [[Alternative]] = [], receive: [[Alternative]] = []) {
        self.send = send
        self.receive = receive
    }

    /// Parses the value after `a=simulcast:`. At most one list per direction, at least one list.
    public init(parsing value: String) throws(SDPParseError) {
        let f = SDPText.fields(Substring(value))
        guard f.count == 2 || f.count == 4 else { throw .invalidValue("simulcast") }
        var send: [[Alternative]]?
        var receive: [[Alternative]]?
        for index in stride(from: 0, to: f.count, by: 2) {
            let streams = try Self.streams(f[index + 1])
            switch f[index] {
            case "send" where send == nil: send = streams
            case "recv" where receive == nil: receive = streams
            default: throw .invalidValue("simulcast")
            }
        }
        self.init(send: send ?? [], receive: receive ?? [])
    }

    private static func streams(_ text: Substring) throws(SDPParseError) -> [[Alternative]] {
        var streams: [[Alternative]] = []
        for stream in text.unicodeScalars.split(separator: ";", omittingEmptySubsequences: false) {
            var alternatives: [Alternative] = []
            for item in stream.split(separator: ",", omittingEmptySubsequences: false) {
                var id = Substring(item)
                let paused = id.hasPrefix("~")
                if paused { id = id.dropFirst() }
                guard SDPRID.isRIDIdentifier(id) else { throw .invalidValue("simulcast") }
                alternatives.append(Alternative(rid: String(id), paused: paused))
            }
            streams.append(alternatives)
        }
        return streams
    }

    /// The value after `a=simulcast:`.
    public var sdpValue: String {
        func list(_ streams: [[Alternative]]) -> String {
            streams.map { $0.map { ($0.paused ? "~" : "") + $0.rid }.joined(separator: ",") }.joined(separator: ";")
        }
        var parts: [String] = []
        if !send.isEmpty { parts.append("send " + list(send)) }
        if !receive.isEmpty { parts.append("recv " + list(receive)) }
        return parts.joined(separator: " ")
    }
}

extension MediaDescription {
    /// The section's `a=rid` lines that parse (RFC 8851), in order.
    public var rids: [SDPRID] {
        attributes(named: "rid").compactMap { attribute in attribute.value.flatMap { try? SDPRID(parsing: $0) } }
    }

    /// The section's `a=simulcast` (RFC 8853), if present and valid.
    public var simulcast: SDPSimulcast? {
        attributeValue("simulcast").flatMap { try? SDPSimulcast(parsing: $0) }
    }
}
