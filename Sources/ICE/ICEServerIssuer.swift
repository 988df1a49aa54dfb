import STUN

/// The STUN and TURN servers a server hands its clients, as Twilio's Network Traversal Service
/// does (`ice_servers`): STUN URLs as they are, TURN URLs with TURN REST credentials made fresh per
/// request from coturn's `static-auth-secret` (`TURNRESTCredentials`: username
/// `"<expiry>:<user>"`, password base64(HMAC-SHA1(secret, username))). Pure: the time and the
/// HMAC are passed in.
public struct ICEServerIssuer: Sendable {
    /// One server entry (WebRTC's `RTCIceServer`): URLs and, for TURN, credentials.
    public struct Entry: Sendable, Equatable {
        public var urls: [String]
        public var username: String?
        public var credential: String?

        public init(urls: [String], username: String? = nil, credential: String? = nil) {
            self.urls = urls
            self.username = username
            self.credential = credential
        }
    }

    /// `stun:` URLs (RFC 7064).
    public let stunURLs: [String]
    /// `turn:` and `turns:` URLs (RFC 7065), all served with one shared secret.
    public let turnURLs: [String]
    /// Seconds the credentials stay valid.
    public let ttl: Int
    private let secret: String
    private let hmac: HMACFunction

    /// - Parameters:
    ///   - urls: `stun:`, `turn:` and `turns:` URLs, sorted into the two kinds by scheme.
    ///   - secret: coturn's `static-auth-secret`; needed when `urls` has a TURN URL.
    ///   - hmac: HMAC-SHA1, e.g. `{ HMAC.sha1(key: $0, message: $1) }` from ParleyCrypto.
    public init(urls: [String], secret: String, ttl: Int, hmac: @escaping HMACFunction) {
        stunURLs = urls.filter { Self.scheme(of: $0) == "stun" || Self.scheme(of: $0) == "stuns" }
        turnURLs = urls.filter { Self.scheme(of: $0) == "turn" || Self.scheme(of: $0) == "turns" }
        self.secret = secret
        self.ttl = ttl
        self.hmac = hmac
    }

    /// The lowercased scheme of a URL (`stun`, `turn`, …), or nil without one.
    public static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex else { return nil }
        return url[..<colon].lowercased()
    }

    /// Nothing to hand out.
    public var isEmpty: Bool { stunURLs.isEmpty && turnURLs.isEmpty }

    /// The TURN credentials for `user` (an identity or an account SID), valid for `ttl` seconds
    /// (default the issuer's) from `now` (Unix seconds).
    public func credentials(user: String, now: UInt64, ttl: Int? = nil) -> (username: String, password: String) {
        let expiry = now + UInt64(max(0, ttl ?? self.ttl))
        return TURNRESTCredentials.make(user: user, secret: secret, expiresAt: expiry, hmac: hmac)
    }

    /// The entries for `user`: one with the STUN URLs, one with the TURN URLs and fresh credentials.
    public func entries(user: String, now: UInt64, ttl: Int? = nil) -> [Entry] {
        var entries: [Entry] = []
        if !stunURLs.isEmpty { entries.append(Entry(urls: stunURLs)) }
        if !turnURLs.isEmpty {
            let (username, password) = credentials(user: user, now: now, ttl: ttl)
            entries.append(Entry(urls: turnURLs, username: username, credential: password))
        }
        return entries
    }
}
