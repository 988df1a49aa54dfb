import Foundation

/// Runs a command in a private network namespace whose loopback drops UDP at random on input
/// (nftables `numgen random`), so every datagram crossing loopback — each hop of a call through
/// a server on the same host — is lost with that probability, by the kernel, not a simulation.
/// `unshare --net --pid --fork --kill-child` ends the namespace and everything in it with the
/// process; nothing outlives the test. Needs root, `unshare` (util-linux), `ip` (iproute2) and
/// `nft` (nftables), which `scripts/install-deps` installs; fails, never skips, without them.
public enum LossyNamespace {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `unshare` and its arguments for `command` under `lossPercent` (0–100) random UDP input loss.
    public static func arguments(lossPercent: Int, command: [String]) throws -> (executable: String, arguments: [String]) {
        guard getuid() == 0 else { throw Failure(description: "a private network namespace (unshare --net) needs root") }
        let unshare = try tool("unshare", in: ["/usr/bin", "/bin"], package: "util-linux")
        let ip = try tool("ip", in: ["/usr/sbin", "/sbin", "/usr/bin", "/bin"], package: "iproute2")
        let nft = try tool("nft", in: ["/usr/sbin", "/sbin", "/usr/bin"], package: "nftables")
        let loss = min(max(lossPercent, 0), 100)
        let script = """
            set -e
            \(ip) link set lo up
            \(nft) add table inet parley_loss
            \(nft) add chain inet parley_loss input '{ type filter hook input priority 0; policy accept; }'
            \(nft) add rule inet parley_loss input meta l4proto udp numgen random mod 100 '<' \(loss) drop
            exec "$@"
            """
        return (unshare, ["--net", "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", "-c", script, "sh"] + command)
    }

    static func tool(_ name: String, in directories: [String], package: String) throws -> String {
        for directory in directories where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        throw Failure(description: "\(name) is missing: scripts/install-deps installs it (Debian package \(package))")
    }
}
