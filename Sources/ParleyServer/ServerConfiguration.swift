import ParleyCore
import PlatformCore
import SIPGateway

/// How `parley-server` runs, from its command line.
public struct ServerConfiguration: Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var databasePath = "./parley.db"
    public var logLevel = LogLevel.error
    public var tlsCertificatePath: String?
    public var tlsPrivateKeyPath: String?
    /// Event-loop threads for the HTTP listener.
    public var threads = 1
    /// Clock leeway for token `exp`/`nbf` checks, in seconds.
    public var tokenLeeway: Int64 = 60
    /// The WebRTC media UDP socket (`--media`); port 0 picks an ephemeral one.
    public var mediaHost = "127.0.0.1"
    public var mediaPort = 0
    /// The addresses answers advertise for the media socket (`--media-advertise IP[,IP…]`); empty:
    /// the bound address, or every interface address when it is a wildcard.
    public var mediaAdvertisedHosts: [String] = []
    /// WebRTC sessions the media server holds at once (`--media-sessions`; a bridged call uses two).
    public var mediaMaxSessions = 2_000
    /// The most a room participant may send per video track (`--room-publish-kbps`, kbit/s),
    /// announced to publishers in REMB; 0: no cap.
    public var roomPublishKbps = 2_500
    /// The most one room data track may forward, kbit/s (0: no cap).
    public var roomDataKbps = 4_000
    /// The server's URL as applications see it (`--public-url`), for recording URLs; default
    /// the listener's own address.
    public var publicURL: String?
    /// Where `<Record>` writes WAV files (`--recordings`).
    public var recordingsDirectory = "./recordings"
    /// Push relay for incoming calls (`--push-webhook URL`): the ClientNotificationUrl pattern.
    public var pushWebhookURL: String?
    /// APNs VoIP pushes (`--apns-key P8 --apns-key-id ID --apns-team-id TEAM --apns-bundle-id ID
    /// [--apns-url URL] [--apns-ca PEM]`).
    public var apnsKeyPath: String?
    public var apnsKeyID: String?
    public var apnsTeamID: String?
    public var apnsBundleID: String?
    public var apnsURL: String?
    public var apnsTrustRoots: String?
    /// A request, head and body, must arrive within this (`--request-timeout`, seconds).
    public var requestTimeout: Duration = .seconds(30)
    /// A client that takes no byte of what the server sends for this long is closed (`--write-timeout`).
    public var writeTimeout: Duration = .seconds(20)
    /// Connections per source address before one of them authenticates (`--max-unauthenticated-per-address`; 0: no cap).
    public var maxUnauthenticatedPerAddress = 256
    /// What one identity and one API key may hold at once (`--max-…-per-identity|key`).
    public var quotas = QuotaLimits()
    /// STUN and TURN servers for clients (`--ice-server`), TURN credentials from coturn's shared
    /// secret (`--turn-secret-file`, or `turnSecret` set directly), valid `turnTTL` seconds.
    public var iceServerURLs: [String] = []
    public var turnSecretFile: String?
    public var turnSecret: String?
    public var turnTTL = 86_400
    /// SIP (`--sip HOST:PORT`: UDP and TCP; `--sip-tls HOST:PORT` with the TLS certificate);
    /// nil: no SIP. `sipRealm` is the digest realm (`--sip-realm`), the one credentials are hashed for.
    public var sipHost: String?
    public var sipPort = 5060
    public var sipTLSHost: String?
    public var sipTLSPort = 5061
    public var sipRealm = "parley"
    /// Where `<Dial><Number>` and REST-created calls to numbers go (`--sip-trunk NAME=sip:HOST:PORT`,
    /// repeatable; the first takes numbers), with `--sip-trunk-credentials NAME=USER:PASSWORD`. None: numbers fail.
    public var sipTrunks: [SIPTrunk] = []
    /// Trusted roots (PEM) for the TLS connections SIP calls open (`sips:`; `--sip-tls-ca`); nil: the system's.
    public var sipTLSTrustRoots: String?
    /// A trunk given as `HOST:PORT` in code (the trunk `default`, after `sipTrunks`).
    public var sipTrunk: String?
    /// INVITEs and REGISTERs one address may start per second, in bursts of twice that
    /// (`--sip-request-rate N`, 0 for no limit); past it `503` with `Retry-After`, or dropped.
    public var sipRequestRate = 50

    /// `sipTrunks`, then `sipTrunk` when it parses.
    var allSIPTrunks: [SIPTrunk] { sipTrunks + (sipTrunk.flatMap { try? SIPTrunk(spec: $0) }.map { [$0] } ?? []) }

    public init() {}

    public static let usage = """
        usage: parley-server [--http HOST:PORT] [--media HOST:PORT] [--media-advertise IP[,IP…]] [--db PATH]
                             [--log-level LEVEL]
                             [--tls-cert PEM --tls-key PEM] [--threads N] [--token-leeway SECONDS]
                             [--media-sessions N] [--room-publish-kbps K] [--room-data-kbps K] [--public-url URL] [--recordings DIR]
                             [--push-webhook URL]
                             [--request-timeout S] [--write-timeout S] [--max-unauthenticated-per-address N]
                             [--apns-key P8 --apns-key-id ID --apns-team-id TEAM --apns-bundle-id ID
                              [--apns-url URL] [--apns-ca PEM]]
                             [--max-{sessions,connections,calls}-per-{identity,key} N]
                             [--ice-server URL]... [--turn-secret-file PATH] [--turn-ttl S]
                             [--sip HOST:PORT] [--sip-tls HOST:PORT] [--sip-realm REALM]
                             [--sip-trunk NAME=sip:HOST:PORT]... [--sip-trunk-credentials NAME=USER:PASSWORD]...
                             [--sip-tls-ca PEM]
                             [--sip-request-rate N]
          --http         listen address (default 127.0.0.1:8080; port 0 picks a free one)
          --media        WebRTC media UDP address (default 127.0.0.1:0, an ephemeral port; 0.0.0.0 or [::]
                         advertises every address of the host's interfaces of that family)
          --media-advertise  the IP addresses answers give for the media socket (behind 1:1 NAT)
          --db           SQLite store (default ./parley.db, created with mode 0600)
          --log-level    off|fatal|error|warning|info|debug|trace|all (default error)
          --tls-cert/--tls-key  serve HTTPS with this certificate and key
          --media-sessions  WebRTC sessions held at once (default 2000; a bridged call uses two)
          --room-publish-kbps  the most a room participant may send per video track (default 2500; 0: no cap)
          --room-data-kbps     the most a room participant's data track may forward (default 4000; 0: no cap)
          --public-url   the server's URL as webhooks should see it (default http://HOST:PORT)
          --recordings   directory for <Record> files (default ./recordings)
          --push-webhook POST incoming-call pushes (JSON, Twilio's twi_* keys) to this URL
          --request-timeout  a request (head and body) must arrive within S seconds, else 408 (default 30)
          --write-timeout    close a client that reads nothing of what it is sent for S seconds (default 20)
          --max-unauthenticated-per-address  connections from one address before one authenticates
                         (default 256; more are closed at once; 0: no cap)
          --sip          SIP registrar on UDP and TCP at this address (default: no SIP; 5060 is SIP's port),
                         and SIP over WebSocket (RFC 7118, subprotocol sip) at /sip on the HTTP(S) listener
          --sip-tls      SIP over TLS at this address, with the --tls-cert certificate
          --sip-realm    the digest realm of SIP challenges (default parley; credentials are hashed for it)
          --sip-trunk    a SIP trunk (carrier or PBX; UDP, or ;transport=tcp): <Dial><Number> and REST calls to numbers go to the
                         first as sip:NUMBER@HOST:PORT;user=phone (HOST:PORT alone is the trunk "default")
          --sip-trunk-credentials  digest username and password the server answers the trunk's challenges with
          --sip-tls-ca   PEM roots that <Sip>sips:…</Sip> and TLS trunks' certificates are checked against (default: the system's)
          --sip-request-rate  INVITEs and REGISTERs one address may start per second (default 50, bursts of 2×; 0: no limit)
          --apns-*       send VoIP pushes through APNs (token auth: .p8 key, key ID, team ID, bundle ID;
                         --apns-url defaults to production, --apns-ca trusts a private CA)
        \(QuotaLimits.usage)
        \(traversalUsage)
        """

    /// Parses the arguments after the program name. Throws a message fit for standard error.
    public static func parse(_ arguments: [String]) throws(ConfigurationError) -> ServerConfiguration {
        var config = ServerConfiguration()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" { throw ConfigurationError(message: usage, isHelp: true) }
            guard let value = rest.popFirst() else { throw ConfigurationError(message: "\(flag) needs a value") }
            switch flag {
            case "--http", "--media", "--sip", "--sip-tls":
                guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
                      (0...65535).contains(port) else {
                    throw ConfigurationError(message: "\(flag) wants HOST:PORT, got \(value)")
                }
                var host = String(value[..<colon])
                if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                if flag == "--http" {
                    config.host = host.isEmpty ? "0.0.0.0" : host
                    config.port = port
                } else if flag == "--sip" {
                    (config.sipHost, config.sipPort) = (host.isEmpty ? "0.0.0.0" : host, port)
                } else if flag == "--sip-tls" {
                    (config.sipTLSHost, config.sipTLSPort) = (host.isEmpty ? "0.0.0.0" : host, port)
                } else {
                    config.mediaHost = host.isEmpty ? "0.0.0.0" : host
                    config.mediaPort = port
                }
            case "--db": config.databasePath = value
            case "--sip-trunk":
                do { config.sipTrunks.append(try SIPTrunk(spec: value)) } catch { throw ConfigurationError(message: error.message) }
                guard Set(config.sipTrunks.map(\.name)).count == config.sipTrunks.count else {
                    throw ConfigurationError(message: "--sip-trunk: two trunks are named \(config.sipTrunks.last?.name ?? "")")
                }
            case "--sip-tls-ca": config.sipTLSTrustRoots = value
            case "--sip-trunk-credentials":
                do { try SIPTrunk.applyCredentials(value, to: &config.sipTrunks) } catch { throw ConfigurationError(message: error.message) }
            case "--sip-realm":
                guard !value.isEmpty, !value.contains("\""), value.utf8.count <= 128 else {
                    throw ConfigurationError(message: "--sip-realm wants a name without quotes")
                }
                config.sipRealm = value
            case "--log-level":
                guard let level = LogLevel(name: value) else { throw ConfigurationError(message: "unknown log level \(value)") }
                config.logLevel = level
            case "--media-sessions":
                guard let n = Int(value), (1...100_000).contains(n) else { throw ConfigurationError(message: "--media-sessions wants 1…100000") }
                config.mediaMaxSessions = n
            case "--room-publish-kbps":
                guard let n = Int(value), (0...100_000).contains(n) else {
                    throw ConfigurationError(message: "--room-publish-kbps wants 0…100000")
                }
                config.roomPublishKbps = n
            case "--room-data-kbps":
                guard let n = Int(value), (0...1_000_000).contains(n) else {
                    throw ConfigurationError(message: "--room-data-kbps wants 0…1000000")
                }
                config.roomDataKbps = n
            case "--media-advertise": config.mediaAdvertisedHosts = Self.commaList(value)
            case "--public-url": config.publicURL = value
            case "--recordings": config.recordingsDirectory = value
            case "--push-webhook": config.pushWebhookURL = value
            case "--apns-key": config.apnsKeyPath = value
            case "--apns-key-id": config.apnsKeyID = value
            case "--apns-team-id": config.apnsTeamID = value
            case "--apns-bundle-id": config.apnsBundleID = value
            case "--apns-url": config.apnsURL = value
            case "--apns-ca": config.apnsTrustRoots = value
            case "--tls-cert": config.tlsCertificatePath = value
            case "--tls-key": config.tlsPrivateKeyPath = value
            case "--sip-request-rate":
                guard let n = Int(value), (0...1_000_000).contains(n) else { throw ConfigurationError(message: "--sip-request-rate wants 0…1000000") }
                config.sipRequestRate = n
            case "--threads":
                guard let n = Int(value), (1...64).contains(n) else { throw ConfigurationError(message: "--threads wants 1…64") }
                config.threads = n
            case "--request-timeout", "--write-timeout":
                guard let n = Int(value), (1...3600).contains(n) else { throw ConfigurationError(message: "\(flag) wants 1…3600 seconds") }
                if flag == "--request-timeout" { config.requestTimeout = .seconds(n) } else { config.writeTimeout = .seconds(n) }
            case "--max-unauthenticated-per-address":
                guard let n = Int(value), (0...1_000_000).contains(n) else {
                    throw ConfigurationError(message: "--max-unauthenticated-per-address wants 0…1000000")
                }
                config.maxUnauthenticatedPerAddress = n
            case "--token-leeway":
                guard let n = Int64(value), (0...3600).contains(n) else { throw ConfigurationError(message: "--token-leeway wants 0…3600") }
                config.tokenLeeway = n
            default:
                if try config.parseTraversal(flag: flag, value: value) { continue }
                guard try config.quotas.parse(flag: flag, value: value) else {
                    throw ConfigurationError(message: "unknown option \(flag)\n\(usage)")
                }
            }
        }
        let apns = [config.apnsKeyPath, config.apnsKeyID, config.apnsTeamID, config.apnsBundleID]
        if apns.contains(where: { $0 != nil }), apns.contains(where: { $0 == nil }) {
            throw ConfigurationError(message: "--apns-key, --apns-key-id, --apns-team-id and --apns-bundle-id go together")
        }
        if (config.tlsCertificatePath == nil) != (config.tlsPrivateKeyPath == nil) {
            throw ConfigurationError(message: "--tls-cert and --tls-key go together")
        }
        try config.validate()
        return config
    }
}

/// A command-line mistake, or a request for help.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var isHelp = false
    public var description: String { message }
}
