/// Persistent-connection rules (RFC 9112 §9.3).
public enum HTTPKeepAlive {
    /// HTTP/1.1 persists unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public static func persists(version: HTTPVersion, headers: HTTPHeaders) -> Bool {
        let tokens = headers.tokens("Connection")
        if tokens.contains("close") { return false }
        if version.major == 1 && version.minor == 0 { return tokens.contains("keep-alive") }
        return version.major == 1
    }
}
