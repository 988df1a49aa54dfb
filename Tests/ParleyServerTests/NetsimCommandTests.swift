import Foundation
import Glibc
import ParleyCore
import ParleyNet
import ParleyTestSupport
import Synchronization
import Testing

/// `parley netsim` as a real process: it relays through its simulated network, reports, and stops
/// cleanly on SIGTERM.
@Suite(.timeLimit(.minutes(1)), .tags(.process)) struct NetsimCommandTests {
    /// Starts `parley netsim args…` and reads its first stdout line (the bound address).
    static func start(_ arguments: [String]) throws -> (process: Process, output: Pipe, port: Int) {
        let process = Process()
        process.executableURL = try Executables.url("parley")
        process.arguments = ["netsim"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        let text = readLine(output)
        guard let match = text.firstMatch(of: /relaying 127\.0\.0\.1:(\d+) ->/), let port = Int(match.output.1) else {
            process.terminate()
            throw TestFailure("parley netsim did not report its address: \(text)")
        }
        return (process, output, port)
    }

    /// The next line of `output` (blocking), without its newline.
    static func readLine(_ output: Pipe) -> String {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Sends SIGTERM, waits for a clean exit, returns the final report.
    static func stop(_ process: Process, _ output: Pipe) async throws -> String {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        // Foundation traps on `terminationStatus` of a running process: kill it first if it hangs.
        #expect(!process.isRunning, "netsim did not exit within 10 s of SIGTERM")
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return ""
        }
        #expect(process.terminationStatus == 0)
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func relaysWithLossAndStopsOnSIGTERM() async throws {
        let sink = try CountingSink()
        defer { sink.close() }
        let netsim = try Self.start(["--listen", "127.0.0.1:0", "--forward", "127.0.0.1:\(sink.socket.localPort)",
                                     "--loss", "10", "--delay-ms", "10", "--jitter-ms", "5", "--seed", "5"])
        defer { if netsim.process.isRunning { netsim.process.terminate() } }
        let client = sink.client
        let relay = try SocketAddress.resolve(host: "127.0.0.1", port: netsim.port)
        for start in stride(from: 0, to: 500, by: 25) {
            client.send((start..<start + 25).map { Datagram(address: relay, bytes: [UInt8(truncatingIfNeeded: $0), 0x80, 0, 0]) })
            try await Task.sleep(for: .milliseconds(2))
        }
        // Wait until arrivals stop growing (the relay holds each datagram 10–15 ms).
        var last = -1
        while sink.arrived != last {
            last = sink.arrived
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(abs(last - 450) <= 35, "arrived \(last) of 500")

        let report = try await Self.stop(netsim.process, netsim.output)
        let upstream = try #require(report.firstMatch(of: /upstream: submitted (\d+) delivered (\d+) lost (\d+)/), "\(report)")
        #expect(Int(upstream.output.1) == 500)
        #expect(Int(upstream.output.2) == last)
        #expect(Int(upstream.output.3).map { $0 + last } == 500)
    }

    /// `--outage-at 0 --outage-for 2`: a line says the outage began; what is sent during it is
    /// dropped (and counted in the report); after the line that says it ended, datagrams pass again.
    @Test func scheduledOutageDropsThenLifts() async throws {
        let sink = try CountingSink()
        defer { sink.close() }
        let netsim = try Self.start(["--listen", "127.0.0.1:0", "--forward", "127.0.0.1:\(sink.socket.localPort)",
                                     "--outage-at", "0", "--outage-for", "2"])
        defer { if netsim.process.isRunning { netsim.process.terminate() } }
        let client = sink.client
        let relay = try SocketAddress.resolve(host: "127.0.0.1", port: netsim.port)
        let datagrams = (0..<20).map { Datagram(address: relay, bytes: [UInt8($0), 0x80, 0, 0]) }

        #expect(Self.readLine(netsim.output).contains("outage begins at 0 s for 2 s"))
        client.send(datagrams)
        #expect(Self.readLine(netsim.output).contains("outage ends at 2 s"))
        #expect(sink.arrived == 0)
        client.send(datagrams)
        let deadline = ContinuousClock.now + .seconds(10)
        while sink.arrived < 20, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(sink.arrived == 20)
        let report = try await Self.stop(netsim.process, netsim.output)
        #expect(report.contains("outage-dropped 20 clients 1"), "\(report)")
        #expect(report.contains("upstream: submitted 20 delivered 20"), "\(report)")
    }

    /// `--rate-kbps 80 --queue 10 --rate-at 1:0`: a burst while the limit holds mostly finds the
    /// queue full; after the line that says the limit lifted, a burst passes whole.
    @Test func scheduledRateChangeLiftsTheLimit() async throws {
        let sink = try CountingSink()
        defer { sink.close() }
        let netsim = try Self.start(["--listen", "127.0.0.1:0", "--forward", "127.0.0.1:\(sink.socket.localPort)",
                                     "--rate-kbps", "80", "--queue", "10", "--rate-at", "1:0"])
        defer { if netsim.process.isRunning { netsim.process.terminate() } }
        let relay = try SocketAddress.resolve(host: "127.0.0.1", port: netsim.port)
        let burst = (0..<100).map { Datagram(address: relay, bytes: [UInt8($0), 0x80] + [UInt8](repeating: 0, count: 998)) }

        sink.client.send(burst)
        #expect(Self.readLine(netsim.output).contains("rate unlimited at 1 s"))
        let limited = sink.arrived
        #expect(limited > 0 && limited <= 25, "\(limited) of 100 through 80 kbit/s with a 10-packet queue")
        sink.client.send(burst)
        let deadline = ContinuousClock.now + .seconds(10)
        while sink.arrived < limited + 100, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(sink.arrived == limited + 100)
        let report = try await Self.stop(netsim.process, netsim.output)
        #expect(report.contains("queue-dropped \(100 - limited)"), "\(report)")
    }

    @Test func rejectsBadArguments() throws {
        let missing = try Executables.run("parley", ["netsim", "--listen", "127.0.0.1:0"])
        #expect(missing.status == 2 && missing.stderr.contains("--forward"))
        let badLoss = try Executables.run("parley", ["netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9", "--loss", "120"])
        #expect(badLoss.status == 2 && badLoss.stderr.contains("--loss"))
        let burstAlone = try Executables.run("parley", ["netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9", "--burst", "3"])
        #expect(burstAlone.status == 2 && burstAlone.stderr.contains("--burst needs --loss"))
        let outageAlone = try Executables.run("parley", ["netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9",
                                                         "--outage-at", "3"])
        #expect(outageAlone.status == 2 && outageAlone.stderr.contains("--outage-at and --outage-for go together"))
        let lengths = try Executables.run("parley", ["netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9",
                                                     "--outage-at", "3", "--outage-at", "9", "--outage-for", "1",
                                                     "--outage-for", "2", "--outage-for", "3"])
        #expect(lengths.status == 2 && lengths.stderr.contains("--outage-for is given once, or once per --outage-at"))
        let rate = try Executables.run("parley", ["netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:9", "--rate-at", "5"])
        #expect(rate.status == 2 && rate.stderr.contains("--rate-at must be SECONDS:KBPS"))
    }
}

/// A UDP sink that counts what arrives, and a client socket to send from, on a loop of their own.
private final class CountingSink {
    private final class Counter: Sendable { let count = Mutex(0) }

    let group: EventLoopGroup
    let socket: UDPSocket
    let client: UDPSocket
    private let counter = Counter()

    init() throws {
        group = try EventLoopGroup(threads: 1)
        let counter = counter
        socket = try UDPSocket(loop: group.loops[0]) { datagrams in counter.count.withLock { $0 += datagrams.count } }
        client = try UDPSocket(loop: group.loops[0]) { _ in }
    }

    /// Datagrams received so far.
    var arrived: Int { counter.count.withLock { $0 } }

    func close() {
        client.close()
        socket.close()
        group.shutdown()
    }
}
