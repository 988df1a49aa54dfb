import ParleyCore

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

    public init() {}

    public static let usage = """
        usage: parley-server [--http HOST:PORT] [--media HOST:PORT] [--db PATH] [--log-level LEVEL]
                             [--tls-cert PEM --tls-key PEM] [--threads N] [--token-leeway SECONDS]
          --http         listen address (default 127.0.0.1:8080; port 0 picks a free one)
          --media        WebRTC media UDP address (default 127.0.0.1:0, an ephemeral port)
          --db           SQLite store (default ./parley.db, created with mode 0600)
          --log-level    off|fatal|error|warning|info|debug|trace|all (default error)
          --tls-cert/--tls-key  serve HTTPS with this certificate and key
        """

    /// Parses the arguments after the program name. Throws a message fit for standard error.
    public static func parse(_ arguments: [String]) throws(ConfigurationError) -> ServerConfiguration {
        var config = ServerConfiguration()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" { throw ConfigurationError(message: usage, isHelp: true) }
            guard let value = rest.popFirst() else { throw ConfigurationError(message: "\(flag) needs a value") }
            switch flag {
            case "--http", "--media":
                guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
                      (0...65535).contains(port) else {
                    throw ConfigurationError(message: "\(flag) wants HOST:PORT, got \(value)")
                }
                var host = String(value[..<colon])
                if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                if flag == "--http" {
                    config.host = host.isEmpty ? "0.0.0.0" : host
                    config.port = port
                } else {
                    config.mediaHost = host.isEmpty ? "0.0.0.0" : host
                    config.mediaPort = port
                }
            case "--db": config.databasePath = value
            case "--log-level":
                guard let level = LogLevel(name: value) else { throw ConfigurationError(message: "unknown log level \(value)") }
                config.logLevel = level
            case "--tls-cert": config.tlsCertificatePath = value
            case "--tls-key": config.tlsPrivateKeyPath = value
            case "--threads":
                guard let n = Int(value), (1...64).contains(n) else { throw ConfigurationError(message: "--threads wants 1…64") }
                config.threads = n
            case "--token-leeway":
                guard let n = Int64(value), (0...3600).contains(n) else { throw ConfigurationError(message: "--token-leeway wants 0…3600") }
                config.tokenLeeway = n
            default:
                throw ConfigurationError(message: "unknown option \(flag)\n\(usage)")
            }
        }
        if (config.tlsCertificatePath == nil) != (config.tlsPrivateKeyPath == nil) {
            throw ConfigurationError(message: "--tls-cert and --tls-key go together")
        }
        return config
    }
}

/// A command-line mistake, or a request for help.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var isHelp = false
    public var description: String { message }
}
