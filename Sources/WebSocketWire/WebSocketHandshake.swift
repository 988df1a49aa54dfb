import WireKit

/// Why an opening handshake was refused (RFC 6455 §4.2.1, §4.1).
public enum WebSocketHandshakeError: Error, Sendable, Hashable {
    case notGet
    case missingUpgrade
    case missingConnectionUpgrade
    case badKey
    case unsupportedVersion
    case badStatus(Int)
    case badAccept
}

/// Pure helpers for the opening handshake (RFC 6455 §4). SHA-1 is injected so this target needs no
/// crypto library; ParleyNet passes `Digest.sha1`.
public enum WebSocketHandshake {
    /// The GUID appended to the key (§1.3).
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    public typealias Fields = [(name: String, value: String)]

    /// `base64(SHA-1(key + GUID))` (§4.2.2 step 5.4).
    public static func acceptValue(forKey key: String, sha1: ([UInt8]) -> [UInt8]) -> String {
        Base64.encode(sha1(Array((key + guid).utf8)))
    }

    /// A fresh `Sec-WebSocket-Key` from 16 random bytes (§4.1).
    public static func makeKey(randomBytes: [UInt8]) -> String {
        precondition(randomBytes.count == 16)
        return Base64.encode(randomBytes)
    }

    /// Checks a client's upgrade request (§4.2.1) and returns its `Sec-WebSocket-Key`.
    public static func validateRequest(method: String, headers: Fields) throws(WebSocketHandshakeError) -> String {
        guard method == "GET" else { throw .notGet }
        guard tokens("Upgrade", headers).contains("websocket") else { throw .missingUpgrade }
        guard tokens("Connection", headers).contains("upgrade") else { throw .missingConnectionUpgrade }
        guard let key = value("Sec-WebSocket-Key", headers), Base64.decodedCount(key) == 16 else { throw .badKey }
        guard value("Sec-WebSocket-Version", headers) == "13" else { throw .unsupportedVersion }
        return key
    }

    /// The header fields of the `101 Switching Protocols` answer (§4.2.2), naming the chosen
    /// `subprotocol` when there is one (§4.2.2 step 5.5.4, `Sec-WebSocket-Protocol`).
    public static func responseHeaders(key: String, subprotocol: String? = nil, sha1: ([UInt8]) -> [UInt8]) -> Fields {
        [("Upgrade", "websocket"), ("Connection", "Upgrade"),
         ("Sec-WebSocket-Accept", acceptValue(forKey: key, sha1: sha1))] + (subprotocol.map { [("Sec-WebSocket-Protocol", $0)] } ?? [])
    }

    /// Whether a client's request offers `subprotocol` among its `Sec-WebSocket-Protocol` values
    /// (§4.1 step 10, §11.3.4: a comma list, possibly over several fields).
    public static func offers(subprotocol: String, headers: Fields) -> Bool {
        tokens("Sec-WebSocket-Protocol", headers).contains(subprotocol.lowercased())
    }

    /// The header fields a client adds to its `GET` (§4.1); `host` includes the port if not default.
    public static func requestHeaders(host: String, key: String) -> Fields {
        [("Host", host), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
         ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13")]
    }

    /// Checks the server's answer (§4.1, client steps 1–4).
    public static func validateResponse(status: Int, headers: Fields, key: String,
                                        sha1: ([UInt8]) -> [UInt8]) throws(WebSocketHandshakeError) {
        guard status == 101 else { throw .badStatus(status) }
        guard tokens("Upgrade", headers).contains("websocket") else { throw .missingUpgrade }
        guard tokens("Connection", headers).contains("upgrade") else { throw .missingConnectionUpgrade }
        guard value("Sec-WebSocket-Accept", headers) == acceptValue(forKey: key, sha1: sha1) else { throw .badAccept }
    }

    private static func value(_ name: String, _ headers: Fields) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value.trimmingCharacters()
    }

    private static func tokens(_ name: String, _ headers: Fields) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }
            .flatMap { $0.value.split(separator: ",") }
            .map { String($0).trimmingCharacters().lowercased() }
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
