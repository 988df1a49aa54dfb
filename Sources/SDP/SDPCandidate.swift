/// An ICE candidate (RFC 8839 §5.1), from an `a=candidate:` line or a trickled
/// `candidate:...` string (RFC 8840 §4).
///
/// `foundation SP component SP transport SP priority SP address SP port SP "typ" SP type
/// [SP "raddr" SP address] [SP "rport" SP port] *(SP name SP value)`. The extensions browsers
/// send (`tcptype` from RFC 6544 §4.5, and Chromium's `generation`, `ufrag`, `network-id`,
/// `network-cost`) are typed; any other pairs are kept in ``extensions``. Serialization writes the
/// typed extensions in Chromium's order, then the others.
public struct SDPCandidate: Sendable, Hashable {
    /// The candidate type (RFC 8445 §5.1.1).
    public enum CandidateType: String, Sendable, Hashable, CaseIterable {
        /// A local interface address.
        case host
        /// Server-reflexive: learned from a STUN server.
        case srflx
        /// Peer-reflexive: learned from a peer's connectivity check.
        case prflx
        /// Relayed through a TURN server.
        case relay
    }

    /// The TCP connection role (RFC 6544 §4.5).
    public enum TCPType: String, Sendable, Hashable, CaseIterable {
        /// Opens outgoing connections (port is 9, the discard port).
        case active
        /// Accepts incoming connections.
        case passive
        /// Simultaneous open.
        case so
    }

    /// An extension pair not otherwise typed.
    public struct Extension: Sendable, Hashable {
        /// The extension name.
        public var name: String
        /// The extension value.
        public var value: String

        /// Creates an extension pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Up to 32 `ice-char`s identifying candidates that share a base and server.
    public var foundation: String
    /// 1 for RTP, 2 for RTCP (1...256).
    public var component: UInt16
    /// `udp` or `tcp`, as written (compare case-insensitively).
    public var transport: String
    /// The priority (RFC 8445 §5.1.2).
    public var priority: UInt32
    /// The IP address or, for mDNS-obfuscated hosts, a `.local` name.
    public var address: String
    /// The port; 9 for active TCP candidates.
    public var port: UInt16
    /// The candidate type.
    public var type: CandidateType
    /// `raddr`: the related (base or mapped) address.
    public var relatedAddress: String?
    /// `rport`: the related port.
    public var relatedPort: UInt16?
    /// `tcptype`, for TCP candidates.
    public var tcpType: TCPType?
    /// `generation` (Chromium): the ICE restart generation.
    public var generation: UInt32?
    /// `ufrag` (Chromium): the ICE username fragment the candidate belongs to.
    public var ufrag: String?
    /// `network-id` (Chromium).
    public var networkID: UInt32?
    /// `network-cost` (Chromium).
    public var networkCost: UInt32?
    /// Other extension pairs, in order.
    public var extensions: [Extension]

    /// Creates a candidate.
    public init(foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32,
                address: String, port: UInt16, type: CandidateType, relatedAddress: String? = nil,
                relatedPort: UInt16? = nil, tcpType: TCPType? = nil, generation: UInt32? = nil,
                ufrag: String? = nil, networkID: UInt32? = nil, networkCost: UInt32? = nil,
                extensions: [Extension] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.tcpType = tcpType
        self.generation = generation
        self.ufrag = ufrag
        self.networkID = networkID
        self.networkCost = networkCost
        self.extensions = extensions
    }

    /// Parses a trickled candidate: `candidate:...`, optionally with a leading `a=` and a
    /// trailing CRLF, as carried in JSEP's `RTCIceCandidate.candidate` (RFC 8829 §5.9).
    /// - Throws: `SDPParseError` on line 1 with reason `.invalidAttributeValue("candidate")`.
    public init(parsing text: String) throws(SDPParseError) {
        var rest = Substring(text)
        while let last = rest.unicodeScalars.last, last == "\r" || last == "\n" {
            rest = Substring(rest.unicodeScalars.dropLast())
        }
        if rest.hasPrefix("a=") { rest = rest.dropFirst(2) }
        guard rest.hasPrefix("candidate:") else { throw .invalidValue("candidate") }
        try self.init(value: rest.dropFirst("candidate:".count))
    }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard f.count >= 8, f[6] == "typ", (1...32).contains(f[0].utf8.count), SDPText.isICEChars(f[0]),
              let component = SDPText.decimal(f[1], as: UInt16.self), (1...256).contains(component),
              SDPText.isField(f[2]),
              let priority = SDPText.decimal(f[3], as: UInt32.self),
              let port = SDPText.decimal(f[5], as: UInt16.self),
              let type = CandidateType(rawValue: String(f[7])) else { throw .invalidValue("candidate") }
        self.init(foundation: String(f[0]), component: component, transport: String(f[2]), priority: priority,
                  address: String(f[4]), port: port, type: type)
        // raddr, rport and the extensions are name-value pairs; like Chromium we ignore a dangling
        // final name. Known names are typed wherever they appear, so re-serializing is stable.
        var i = 8
        while i + 1 < f.count {
            try apply(name: f[i], value: f[i + 1])
            i += 2
        }
    }

    private mutating func apply(name: Substring, value: Substring) throws(SDPParseError) {
        switch name {
        case "raddr": relatedAddress = String(value)
        case "rport": relatedPort = try Self.number(value)
        case "tcptype":
            guard let parsed = TCPType(rawValue: String(value)) else { throw .invalidValue("candidate") }
            tcpType = parsed
        case "generation": generation = try Self.number(value)
        case "ufrag": ufrag = String(value)
        case "network-id": networkID = try Self.number(value)
        case "network-cost": networkCost = try Self.number(value)
        default: extensions.append(Extension(name: String(name), value: String(value)))
        }
    }

    private static func number<T: FixedWidthInteger & UnsignedInteger>(_ text: Substring) throws(SDPParseError) -> T {
        guard let value = SDPText.decimal(text, as: T.self) else { throw .invalidValue("candidate") }
        return value
    }

    /// Whether the transport is TCP (RFC 6544).
    public var isTCP: Bool { transport.lowercased() == "tcp" }

    /// The value after `a=candidate:`.
    var sdpValue: String {
        var parts = [foundation, String(component), transport, String(priority), address, String(port), "typ", type.rawValue]
        func add(_ name: String, _ value: String?) {
            if let value { parts += [name, value] }
        }
        add("raddr", relatedAddress)
        add("rport", relatedPort.map(String.init))
        add("tcptype", tcpType?.rawValue)
        add("generation", generation.map(String.init))
        add("ufrag", ufrag)
        add("network-id", networkID.map(String.init))
        add("network-cost", networkCost.map(String.init))
        for e in extensions { parts += [e.name, e.value] }
        return parts.joined(separator: " ")
    }

    /// The trickle form, `candidate:...` (no `a=`, no CRLF).
    public var candidateString: String { "candidate:" + sdpValue }
}
