import Foundation
import ParleyTestSupport

extension KamailioConfiguration {
    /// Writes this configuration to `dir/kamailio.cfg` and runs Kamailio 5.6 in the foreground on
    /// it (`-DD -E`, its files in `dir`); returns once it reports its socket, or has exited, or
    /// after 10 s (SO_REUSEADDR: a taken port would not fail, test-peers.md trap 8). The caller
    /// kills it.
    func start(in dir: URL) async throws -> ChildProcess {
        let file = dir.appendingPathComponent("kamailio.cfg")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let kamailio = try ChildProcess(executable: "/usr/sbin/kamailio",
                                        arguments: ["-f", file.path, "-DD", "-E", "-m", "32", "-M", "8", "-Y", dir.path])
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, kamailio.isRunning, !kamailio.stderr.contains("probe_max_receive_buffer") {
            try await Task.sleep(for: .milliseconds(50))
        }
        return kamailio
    }
}
