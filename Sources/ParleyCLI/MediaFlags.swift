import ICE
import ParleyVoice

/// The call's ICE options on the command line: `--ice-server URL` (repeatable; `stun:IP:PORT` or
/// `turn:IP:PORT[?transport=udp]`), `--ice-username`/`--ice-password` for the TURN servers, and
/// `--relay` to use only TURN-relayed candidates, so every media packet goes through the TURN
/// server (and through a `parley netsim` placed in front of it).
struct MediaFlags: Sendable {
    static let options: Set<String> = ["ice-server", "ice-username", "ice-password"]
    static let flags: Set<String> = ["relay"]

    let iceServers: [ICEServer]
    let relayOnly: Bool

    init(_ parsed: Arguments) throws(UsageError) {
        let username = parsed.value("ice-username"), password = parsed.value("ice-password")
        var servers: [ICEServer] = []
        for url in parsed.all("ice-server") {
            let scheme = url.prefix { $0 != ":" }.lowercased()
            guard ["stun", "turn"].contains(scheme) else {
                throw UsageError("--ice-server must be stun:IP:PORT or turn:IP:PORT[?transport=udp], got \(url)")
            }
            let address = url.dropFirst(scheme.count + 1).split(separator: "?", omittingEmptySubsequences: false)[0]
            _ = try NetsimCommand.hostAndPort(String(address), option: "ice-server")
            servers.append(scheme == "turn" ? ICEServer(urlString: url, username: username, password: password)
                                            : ICEServer(urlString: url))
        }
        relayOnly = parsed.has("relay")
        if relayOnly, !servers.contains(where: { $0.urlString.lowercased().hasPrefix("turn:") }) {
            throw UsageError("--relay needs a TURN server: --ice-server turn:IP:PORT")
        }
        iceServers = servers
    }

    func apply(to media: inout CallMediaOptions) {
        media.iceServers = iceServers
        media.iceTransportPolicy = relayOnly ? .relay : .all
    }
}
