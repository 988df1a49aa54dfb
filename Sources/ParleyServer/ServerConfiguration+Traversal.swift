import Foundation
import ICE
import ParleyCrypto
import Signaling

/// The STUN and TURN servers `parley-server` hands its clients (`--ice-server`, `--turn-secret-file`,
/// `--turn-ttl`): in `room.joined` and from the REST `Tokens` resource, TURN credentials made per
/// request from coturn's `static-auth-secret` (`use-auth-secret`). The secret is read from a file,
/// so it is never on a command line, and never logged.
extension ServerConfiguration {
    static let traversalUsage = """
          --ice-server URL  a STUN or TURN server clients get (stun:, turn:, turns:; repeatable), e.g.
                         turn:turn.example.com:3478?transport=udp
          --turn-secret-file PATH  coturn's static-auth-secret (its use-auth-secret mode), one line;
                         needed with a turn: URL. Credentials: username EXPIRY:IDENTITY, HMAC-SHA1 password
          --turn-ttl S   how long TURN credentials are valid (default 86400 seconds, 60…86400)
        """

    /// The longest `--ice-server` URL.
    static let maxICEServerURLBytes = 256

    /// Applies `--ice-server`, `--turn-secret-file` or `--turn-ttl` if `flag` is one of them;
    /// false for other flags.
    mutating func parseTraversal(flag: String, value: String) throws(ConfigurationError) -> Bool {
        switch flag {
        case "--ice-server":
            guard iceServerURLs.count < RoomProtocol.maxICEServers else {
                throw ConfigurationError(message: "at most \(RoomProtocol.maxICEServers) --ice-server URLs")
            }
            try Self.validateICEServerURL(value)
            iceServerURLs.append(value)
        case "--turn-secret-file": turnSecretFile = value
        case "--turn-ttl":
            guard let n = Int(value), (60...86_400).contains(n) else { throw ConfigurationError(message: "--turn-ttl wants 60…86400 seconds") }
            turnTTL = n
        default: return false
        }
        return true
    }

    /// A TURN URL needs the shared secret.
    func validateTraversal() throws(ConfigurationError) {
        let turn = iceServerURLs.contains { ["turn", "turns"].contains(ICEServerIssuer.scheme(of: $0) ?? "") }
        if turn, turnSecretFile == nil, turnSecret == nil {
            throw ConfigurationError(message: "--ice-server turn:… needs --turn-secret-file (coturn's static-auth-secret)")
        }
    }

    /// `stun:`, `stuns:`, `turn:` or `turns:` (RFC 7064 §3.1, RFC 7065 §3.1) with a host, printable
    /// ASCII, no spaces.
    static func validateICEServerURL(_ url: String) throws(ConfigurationError) {
        let scheme = ICEServerIssuer.scheme(of: url)
        guard let scheme, ["stun", "stuns", "turn", "turns"].contains(scheme) else {
            throw ConfigurationError(message: "--ice-server wants a stun:, turn: or turns: URL, got \(url)")
        }
        let rest = url.dropFirst(scheme.count + 1)
        guard !rest.isEmpty, !rest.hasPrefix("/"), url.utf8.count <= maxICEServerURLBytes,
              url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw ConfigurationError(message: "--ice-server \(url): a host (and port) after the scheme, printable ASCII, "
                                              + "at most \(maxICEServerURLBytes) bytes")
        }
    }

    /// The issuer for the configured servers, nil when there are none. Reads `--turn-secret-file`
    /// (its first line) unless `turnSecret` is set.
    /// - Throws: a message fit for standard error when the file cannot be read or is empty.
    public func iceServerIssuer() throws(ConfigurationError) -> ICEServerIssuer? {
        guard !iceServerURLs.isEmpty else { return nil }
        var secret = turnSecret ?? ""
        if turnSecret == nil, let path = turnSecretFile {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigurationError(message: "--turn-secret-file \(path) cannot be read")
            }
            secret = String(text.split(whereSeparator: \.isNewline).first ?? "").trimmingCharacters(in: .whitespaces)
            guard !secret.isEmpty else { throw ConfigurationError(message: "--turn-secret-file \(path) is empty") }
        }
        return ICEServerIssuer(urls: iceServerURLs, secret: secret, ttl: turnTTL) { HMAC.sha1(key: $0, message: $1) }
    }
}
