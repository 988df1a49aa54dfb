import ICE
import ParleyCore

extension PeerConnection.ICEServer {
    /// A STUN or TURN server from its URL as SDKs get it (`RTCIceServer`, RFC 7064/7065):
    /// `stun:IP:PORT` or `turn:IP:PORT[?transport=udp]`, with the TURN credentials. IP literals
    /// only (no DNS lookups here); `[v6]` brackets are taken off.
    /// - Throws: 53400 for another scheme or a URL that names no IP and port.
    public init(url: String, username: String?, password: String?) throws(ParleyError) {
        guard let colon = url.firstIndex(of: ":") else { throw Self.invalid(url) }
        let scheme = url[..<colon].lowercased()
        let rest = url[url.index(after: colon)...].split(separator: "?", omittingEmptySubsequences: false)[0]
        guard let portColon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: portColon)...]) else {
            throw Self.invalid(url)
        }
        var host = rest[..<portColon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard let address = ICETransportAddress(String(host), port: port) else { throw Self.invalid(url) }
        switch scheme {
        case "stun": self = .stun(address)
        case "turn": self = .turn(TURNServer(address: address, username: username ?? "", password: password ?? ""))
        default: throw Self.invalid(url)
        }
    }

    private static func invalid(_ url: String) -> ParleyError {
        ParleyError(.mediaClientLocalDescFailed, reason: "ICE server \(url) is not stun:IP:PORT or turn:IP:PORT")
    }
}
