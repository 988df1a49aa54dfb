import Foundation
import Glibc
import JSONWire
import ParleyNet

/// `parley-bench rooms-janus`: the rooms load (same raw clients, counts, packet sizes, rates and
/// pinning) against Parley's SFU and then against Janus VideoRoom, in one invocation, and the
/// ratio. Janus and libnice never offer 127.0.0.1, so the bench re-executes itself inside a
/// private network and PID namespace (`unshare --net --pid --fork --kill-child --mount-proc`)
/// with a veth pair: Janus gathers on `pb0` (198.18.0.1, RFC 2544's benchmark range), the clients
/// bind `pb1` (198.18.0.2). The bench is PID 1 there, so Janus cannot outlive it; it is also
/// killed by PID when its run ends, failed or not. Needs root, util-linux and iproute2.
enum RoomsJanusBench {
    static let marker = "PARLEY_BENCH_JANUS_NAMESPACE"
    static let janusAddress = "198.18.0.1", clientAddress = "198.18.0.2", port = 18088

    static func run(arguments: [String], seconds: Double, publishers: Int, subscribers: Int, videoKbps: Int,
                    pin: Bool) async throws {
        guard ProcessInfo.processInfo.environment[marker] != nil else { try reexecInNamespace(arguments) }
        let parley = try await RoomsBench.run(seconds: seconds, publishers: publishers, subscribers: subscribers,
                                              videoKbps: videoKbps, pin: pin)
        print("")
        let janus = try await runJanus(seconds: seconds, publishers: publishers, subscribers: subscribers,
                                       videoKbps: videoKbps, pin: pin)
        print("")
        print("# Parley / Janus (same run; packets counted at the subscribers)")
        let ratio = parley.perCPUSecond / max(janus.perCPUSecond, 1e-9)
        print("packets per SFU CPU-second: Parley media loop \(format(parley.perCPUSecond)), Janus process "
              + "\(format(janus.perCPUSecond)) → \(String(format: "%.2f", ratio))×")
        if let process = parley.processCPU {
            let perProcess = parley.receivedPerSecond / max(process, 0.001)
            print("  with Parley's whole process except the load generator: \(format(perProcess)) → "
                  + "\(String(format: "%.2f", perProcess / max(janus.perCPUSecond, 1e-9)))×")
        }
        print("CPU per subscriber: Parley \(String(format: "%.2f", parley.serverCPU * 1000 / Double(subscribers))) ms/s, "
              + "Janus \(String(format: "%.2f", janus.serverCPU * 1000 / Double(subscribers))) ms/s")
    }

    /// Janus's side: start it, create the room, connect the same clients through its HTTP API, measure.
    static func runJanus(seconds: Double, publishers: Int, subscribers: Int, videoKbps: Int, pin: Bool) async throws -> RoomsFigures {
        let pinned = pin && sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        if pinned { ForwardBench.setAffinity(cpu: 1) }
        let janus = try JanusProcess.start(interface: "pb0", address: janusAddress, port: port, cpu: pinned ? 0 : nil)
        defer { janus.stop() }
        let clientLoop = try EventLoop(name: "bench-rooms-janus")
        defer { clientLoop.stop() }
        if pinned { await ForwardBench.onLoop(clientLoop) { ForwardBench.setAffinity(cpu: 1) } }
        let videoPerTick = max(1, Int((Double(videoKbps) * 1000 / 8 / 50 / 1200).rounded()))
        print("# Rooms on Janus VideoRoom (\(publishers) publisher(s) × \(subscribers) subscriber(s), "
              + "the same load; Janus pid \(janus.process.processIdentifier) "
              + (pinned ? "pinned to CPU 0, load to CPU 1; " : "unpinned; ") + "full ICE, HTTP API, log \(janus.directory))")
        do {
            let api = try await JanusAPI.connect(base: janus.baseURL)
            let admin = try await api.attach()
            let room: Int64 = 4242
            _ = try await api.message(admin, ["request": .string("create"), "room": .integer(room),
                                              "publishers": .integer(Int64(publishers + 4)), "bitrate": .integer(0),
                                              "audiocodec": .string("opus"), "videocodec": .string("vp8"),
                                              "fir_freq": .integer(0), "notify_joining": .bool(false)])
            var senders: [RoomPublisher] = [], feeds: [Int64] = []
            for index in 0..<publishers {
                let (client, feed) = try await RoomPublisher.connectJanus(api: api, room: room, loop: clientLoop, host: clientAddress,
                                                                          index: index, videoPacketsPerTick: videoPerTick)
                senders.append(client)
                feeds.append(feed)
            }
            var receivers: [RoomSubscriber] = []
            for index in 0..<subscribers {
                receivers.append(try await RoomSubscriber.connectJanus(api: api, room: room, feeds: feeds, loop: clientLoop,
                                                                       host: clientAddress, index: publishers + index))
            }
            print("sessions \(publishers + subscribers) connected (ICE, DTLS, SRTP) through Janus's HTTP API")
            let figures = try await RoomsBench.measure(seconds: seconds, senders: senders, receivers: receivers,
                                                       clientLoop: clientLoop, inProcess: false,
                                                       serverCPU: { janus.cpuSeconds() }, forwarded: nil)
            RoomsBench.report(figures, subscribers: subscribers, serverCPU: "Janus process CPU (all threads)")
            for client in senders as [BenchMediaClient] + receivers { client.close() }
            await api.close()
            return figures
        } catch {
            print("Janus run failed: \(error)\nJanus log (\(janus.directory)/janus.log):\n\(janus.logTail())")
            throw error
        }
    }

    /// Runs this executable again with the same arguments inside a new network + PID namespace
    /// with a veth pair, and exits with its status.
    private static func reexecInNamespace(_ arguments: [String]) throws -> Never {
        guard getuid() == 0 else { throw JanusAPI.Failure(description: "rooms-janus needs root (a private network namespace)") }
        let unshare = try SystemTool.find("unshare", package: "util-linux")
        let ip = try SystemTool.find("ip", package: "iproute2")
        let script = """
            set -e
            \(ip) link set lo up
            \(ip) link add pb0 type veth peer name pb1
            \(ip) addr add \(janusAddress)/15 dev pb0
            \(ip) addr add \(clientAddress)/15 dev pb1
            \(ip) link set pb0 up
            \(ip) link set pb1 up
            for c in all default pb0 pb1; do
              echo 1 > /proc/sys/net/ipv4/conf/$c/accept_local
              echo 0 > /proc/sys/net/ipv4/conf/$c/rp_filter
            done
            exec env \(marker)=1 "$@"
            """
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = ["--net", "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", "-c", script, "sh",
                             executable] + arguments
        try process.run()
        // Ctrl-C or a kill ends `unshare` by its PID; `--kill-child` then ends the namespace.
        let pid = process.processIdentifier
        var sources: [any DispatchSourceSignal] = []
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { kill(pid, SIGKILL) }
            source.resume()
            sources.append(source)
        }
        process.waitUntilExit()
        withExtendedLifetime(sources) {}
        exit(process.terminationStatus)
    }
}

/// Finds a system tool in the usual directories.
enum SystemTool {
    static func find(_ name: String, package: String) throws -> String {
        for directory in ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        throw JanusAPI.Failure(description: "\(name) is missing: scripts/install-deps installs it (Debian package \(package))")
    }
}
