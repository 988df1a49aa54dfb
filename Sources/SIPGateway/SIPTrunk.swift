import SIPWire

/// An outbound SIP trunk (a carrier or a PBX) that `<Dial><Number>` and REST-created calls to
/// numbers go through, as Twilio's Elastic SIP Trunking "termination URI" with its credential list:
/// `parley-server --sip-trunk NAME=sip:HOST:PORT[;transport=tcp]` (the older `HOST:PORT` form is the
/// trunk `default`) and `--sip-trunk-credentials NAME=USER:PASSWORD`, with which the server
/// answers the trunk's 401/407 challenges.
public struct SIPTrunk: Sendable, Equatable {
    public var name: String
    public var host: String
    public var port: Int
    /// `udp` (the default), `tcp` or `tls` from the URI's `transport` parameter (`sips:` means `tls`).
    public var transport: String
    public var username: String?
    public var password: String?

    public init(name: String, host: String, port: Int, transport: String = "udp", username: String? = nil, password: String? = nil) {
        self.name = name
        self.host = host
        self.port = port
        self.transport = transport
        self.username = username
        self.password = password
    }

    /// A flag's value that is not a trunk; the message says what was expected.
    public struct SpecError: Error, Sendable, Equatable {
        public let message: String
    }

    /// `NAME=sip:HOST[:PORT][;transport=udp|tcp|tls]`, `NAME=sips:…`, or `HOST:PORT` (named `default`).
    /// Names are letters, digits, `-` and `_` (at most 64).
    public init(spec: String) throws(SpecError) {
        let usage = SpecError(message: "--sip-trunk wants NAME=sip:HOST:PORT[;transport=udp|tcp|tls] or HOST:PORT, got \(spec)")
        guard let equals = spec.firstIndex(of: "=") else {
            guard let colon = spec.lastIndex(of: ":"), let port = Int(spec[spec.index(after: colon)...]), (1...65_535).contains(port),
                  !spec[..<colon].isEmpty, !spec.contains("@"), !spec.contains(";") else { throw usage }
            self.init(name: "default", host: String(spec[..<colon]), port: port)
            return
        }
        let name = String(spec[..<equals])
        guard Self.isName(name), let uri = try? SIPURI(parsing: spec[spec.index(after: equals)...]), uri.user == nil,
              uri.headers.isEmpty else { throw usage }
        let transport = uri.transport ?? (uri.isSecure ? "tls" : "udp")
        guard ["udp", "tcp", "tls"].contains(transport) else { throw usage }
        self.init(name: name, host: uri.host.address, port: Int(uri.port ?? (transport == "tls" ? 5061 : 5060)), transport: transport)
    }

    /// Applies `NAME=USER:PASSWORD` (`--sip-trunk-credentials`) to the trunk of that name.
    public static func applyCredentials(_ spec: String, to trunks: inout [SIPTrunk]) throws(SpecError) {
        guard let equals = spec.firstIndex(of: "="), let colon = spec[equals...].firstIndex(of: ":") else {
            throw SpecError(message: "--sip-trunk-credentials wants NAME=USER:PASSWORD")
        }
        let name = String(spec[..<equals]), user = String(spec[spec.index(after: equals)..<colon])
        let password = String(spec[spec.index(after: colon)...])
        guard let index = trunks.firstIndex(where: { $0.name == name }) else {
            throw SpecError(message: "--sip-trunk-credentials names \(name), which no --sip-trunk defines (give --sip-trunk first)")
        }
        guard !user.isEmpty, !password.isEmpty, !user.contains(where: { $0.isNewline || $0 == "\"" }),
              !password.contains(where: \.isNewline) else {
            throw SpecError(message: "--sip-trunk-credentials wants a non-empty USER and PASSWORD")
        }
        (trunks[index].username, trunks[index].password) = (user, password)
    }

    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// A number at the trunk (RFC 3261 §19.1.6): `sip:+15551234567@HOST:PORT;user=phone`, with the
    /// trunk's transport when it is not UDP.
    public func address(forNumber digits: String) -> String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let scheme = transport == "tls" ? "sips" : "sip"
        return "\(scheme):\(digits)@\(host):\(port);user=phone" + (transport == "tcp" ? ";transport=tcp" : "")
    }

    /// Whether a URI is at this trunk (its host and port): its calls carry the trunk's credentials.
    func serves(_ uri: SIPURI) -> Bool {
        uri.host.address == host && Int(uri.port ?? (uri.isSecure ? 5061 : 5060)) == port
    }
}
