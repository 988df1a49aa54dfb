import SIPWire

/// What ``Outgoing/call(_:headers:)`` takes, as the seed's SDK does: a SIP URI
/// (`sip:bob@example.com`), `user@host`, a telephone number (digits with an optional `+`;
/// spaces, `-`, `.` and parentheses dropped; RFC 3261 §19.1.6 `user=phone`) or an identity
/// (`bob`), the last two at the registrar's domain.
enum Destination {
    static func uri(_ destination: String, domain: SIPURI) throws(EndpointError) -> SIPURI {
        let text = destination.trimmingPrefix(" ")
        guard !text.isEmpty, text.utf8.count <= 256 else { throw .invalid("destination must have 1–256 characters") }
        let lower = text.lowercased()
        if lower.hasPrefix("sip:") || lower.hasPrefix("sips:") || text.contains("@") {
            let full = lower.hasPrefix("sip:") || lower.hasPrefix("sips:") ? String(text) : "sip:" + text
            guard var uri = try? SIPURI(parsing: full), uri.user?.isEmpty == false else {
                throw .invalid("destination \"\(destination)\" is not a SIP URI with a user")
            }
            uri.headers = []  // X- headers go through `headers:`
            return uri
        }
        let symbols = Set(" -.()".utf8)
        let compact = String(decoding: text.utf8.filter { !symbols.contains($0) }, as: UTF8.self)
        let digits = compact.hasPrefix("+") ? compact.dropFirst() : Substring(compact)
        if !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return SIPURI(user: compact, host: domain.host, port: domain.port, parameters: [SIPParameter("user", "phone")])
        }
        let identity = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".utf8)
        guard text.utf8.allSatisfy(identity.contains) else {
            throw .invalid("destination \"\(destination)\" is not a SIP URI, a number or an identity")
        }
        return SIPURI(user: String(text), host: domain.host, port: domain.port)
    }
}
