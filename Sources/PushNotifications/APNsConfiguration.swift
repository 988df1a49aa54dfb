/// Settings for `APNsProvider`: the token-signing key (Apple's `AuthKey_<keyID>.p8`), its key and
/// team IDs, the app, and where APNs is.
public struct APNsConfiguration: Sendable {
    /// `https://api.push.apple.com`.
    public static let productionURL = "https://api.push.apple.com"
    /// `https://api.sandbox.push.apple.com` (development builds).
    public static let sandboxURL = "https://api.sandbox.push.apple.com"

    /// The PEM (PKCS#8) private key file, as Apple issues it.
    public var keyPath: String
    /// The 10-character key ID (the JWT's `kid`).
    public var keyID: String
    /// The 10-character team ID (the JWT's `iss`).
    public var teamID: String
    /// The app's bundle ID; VoIP pushes go to `<bundleID>.voip`.
    public var bundleID: String
    /// The APNs base URL: `productionURL`, `sandboxURL`, or any `https://` (or `http://`) URL for tests.
    public var endpoint: String
    /// PEM file of trusted roots for the endpoint's certificate; nil uses the system store.
    public var trustRootsPath: String?
    /// How long one push may take, connecting included.
    public var requestTimeout: Duration
    /// Seconds a provider token is reused: Apple refuses tokens older than an hour and refreshes more
    /// often than every 20 minutes, so the default is 50 minutes.
    public var tokenRefreshInterval: Int64

    public init(keyPath: String, keyID: String, teamID: String, bundleID: String, endpoint: String = productionURL,
                trustRootsPath: String? = nil, requestTimeout: Duration = .seconds(10),
                tokenRefreshInterval: Int64 = 50 * 60) {
        self.keyPath = keyPath
        self.keyID = keyID
        self.teamID = teamID
        self.bundleID = bundleID
        self.endpoint = endpoint
        self.trustRootsPath = trustRootsPath
        self.requestTimeout = requestTimeout
        self.tokenRefreshInterval = tokenRefreshInterval
    }

    /// The `apns-topic` of VoIP pushes: the bundle ID with `.voip` appended (unless already there).
    public var topic: String { bundleID.hasSuffix(".voip") ? bundleID : bundleID + ".voip" }
}
