import Foundation
/// The parts of an `http`, `https`, `ws` or `wss` URL a client needs.
public struct Endpoint: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var useTLS: Bool
    /// Path and query, at least `/`.
    public var target: String

    public init(host: String, port: Int, useTLS: Bool, target: String = "/") {
        self.host = host
        self.port = port
        self.useTLS = useTLS
        self.target = target
    }

    /// Parses `scheme://host[:port][/path][?query]`; IPv6 hosts are bracketed. Fragments are dropped.
    public init(url: String) throws(NetError) {
        let schemeEnd = url.range(of: "://")
        guard let schemeEnd else { throw .badURL(url) }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        switch scheme {
        case "http", "ws": useTLS = false
        case "https", "wss": useTLS = true
        default: throw .badURL(url)
        }
        var rest = url[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<slash]
        let path = rest[slash...]
        target = path.isEmpty ? "/" : (path.first == "?" ? "/" + path : String(path))
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .badURL(url) }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.first == ":" { portText = after.dropFirst() } else if !after.isEmpty { throw .badURL(url) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw .badURL(url) }
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw .badURL(url) }
            port = p
        } else {
            port = useTLS ? 443 : 80
        }
    }

    /// The `Host` header value: the port is omitted when it is the scheme's default (RFC 9110 §7.2).
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (useTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    var poolKey: String { "\(useTLS ? "s" : "")\(host):\(port)" }
}
