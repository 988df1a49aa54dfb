import Foundation

/// coturn (Debian's `turnserver`, apt `coturn`; scripts/install-deps installs it) as the tests run
/// it: UDP only on 127.0.0.1, relaying to loopback peers (the server's media socket), no config file.
public enum Coturn {
    public static let realm = "parley.test"

    /// The installed `turnserver`, or /usr/bin/turnserver (whose absence the start then reports).
    public static var executable: String {
        ["/usr/bin/turnserver", "/usr/sbin/turnserver"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/bin/turnserver"
    }

    /// The command line for a coturn on `127.0.0.1:port` relaying from ports `port + 10000` on,
    /// with `auth` (e.g. `["--lt-cred-mech", "--user=parley:secret"]`); it logs to stdout.
    public static func arguments(port: UInt16, auth: [String]) -> [String] {
        let relayBase = Int(port) + 10_000
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("parley-turn-\(port).pid").path
        return [
            "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", "--listening-port=\(port)",
            "--min-port=\(relayBase)", "--max-port=\(relayBase + 200)", "--allow-loopback-peers", "--no-cli",
            "--no-tls", "--no-dtls", "--realm=\(realm)", "--log-file=stdout", "--simple-log",
            "--pidfile=\(pidFile)",
        ] + auth
    }

    /// What coturn prints once its servers run (its listeners open just after).
    public static let readyLine = "Total General servers"
}
