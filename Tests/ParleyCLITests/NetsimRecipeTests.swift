import AudioCore
import Foundation
import Glibc
import ParleyTestSupport
import Testing

/// docs/voice.md, "Hearing your app under loss", end to end: coturn on loopback, `parley netsim`
/// in front of it with 10 % loss each way, and `parley call --ice-server turn:… --relay` through
/// the netsim to `parley listen` (direct). Every media packet of alice's call crosses the netsim,
/// so the call's own figures show the loss: alice's received stream loses about a tenth of its
/// packets, the selected pair is the relayed one, and netsim counts the drops in both directions.
@Suite(.serialized, .tags(.process)) struct NetsimRecipeTests {
    @Test(.timeLimit(.minutes(2))) func callThroughNetsimInFrontOfTURNShowsTheLoss() async throws {
        let bed = try CLITestBed()
        let turnPort = UInt16.random(in: 47_001...49_000)
        let coturn = try CLIProcess.start(Coturn.executable, Coturn.arguments(port: turnPort, auth: ["--lt-cred-mech", "--user=parley:secret"]),
                                          captureStandardError: true)
        try await coturn.waitForOutput(Coturn.readyLine)
        try await Self.waitForUDPListener(port: turnPort)
        // Seed 1 (netsim's default) spares the handshake's packets: with a seed that drops the
        // server's last DTLS flight the client waits out DTLS retransmission (1 s, 2 s, 4 s) first.
        let netsim = try CLIProcess.start(try CLITestBed.parley, ["netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:\(turnPort)",
                                                                  "--loss", "10", "--seed", "1"])
        try await netsim.waitForOutput("parley netsim relaying")
        let netsimPort = try #require(netsim.output.firstMatch(of: /relaying 127\.0\.0\.1:(\d+) ->/)).1

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-netsim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tone = directory.appendingPathComponent("tone.wav").path
        let samples = (0..<48_000).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        try Data(WAVFile(sampleRate: 48_000, channels: 1, samples: samples).serialized).write(to: URL(fileURLWithPath: tone))

        let bob = try await bed.listen("bob", ["--play", tone])
        let alice = try bed.call("bob", ["--play", tone, "--duration", "10", "--ice-server", "turn:127.0.0.1:\(netsimPort)",
                                         "--ice-username", "parley", "--ice-password", "secret", "--relay"])
        #expect(await alice.exitStatus() == 0, "\(alice.output)\ncoturn:\n\(coturn.output.suffix(2000))")
        #expect(await bob.exitStatus() == 0, "\(bob.output)")
        netsim.signal(SIGINT)
        #expect(await netsim.exitStatus(timeout: .seconds(10)) == 0)

        let said = alice.output
        #expect(said.contains("(relay) ↔"), "alice's media did not go through the relay: \(said)")
        let figures = try #require(said.firstMatch(of: /received (\d+) packets, lost (\d+)/), "no figures: \(said)")
        let received = try #require(Double(figures.1)), lost = try #require(Double(figures.2))
        let fraction = lost / (received + lost)
        let dropped = try Self.netsimLosses(netsim.output)
        print("netsim recipe: alice received \(Int(received)) packets, lost \(Int(lost)) (\(String(format: "%.1f", fraction * 100)) %); "
              + "netsim dropped \(dropped.upstream) upstream, \(dropped.downstream) downstream")
        #expect(received > 150, "too few packets for a loss figure: \(said)")
        #expect((0.04...0.20).contains(fraction), "alice lost \(fraction * 100) % through a 10 % netsim: \(said)")
        #expect(dropped.upstream > 0 && dropped.downstream > 0, "\(netsim.output)")
        let heard = try #require(bob.output.firstMatch(of: /received (\d+) packets, lost (\d+)/), "no figures: \(bob.output)")
        #expect(try #require(Int(heard.2)) > 0, "bob's stream from alice crossed the netsim too: \(bob.output)")
    }

    @Test func mediaFlagsAreChecked() async throws {
        for (flags, complaint) in [(["--relay"], "--relay needs a TURN server"),
                                   (["--ice-server", "turn:localhost"], "--ice-server must be HOST:PORT"),
                                   (["--ice-server", "http://127.0.0.1:3478"], "--ice-server must be stun:IP:PORT or turn:IP:PORT"),
                                   (["--ice-server", "stun:127.0.0.1:3478", "--relay"], "--relay needs a TURN server")] {
            let call = try CLIProcess.start(try CLITestBed.parley, ["call", "bob", "--token", "x", "--server", "http://127.0.0.1:9"] + flags,
                                            captureStandardError: true)
            #expect(await call.exitStatus() == 2, "\(flags): \(call.output)")
            #expect(call.output.contains(complaint), "\(flags): \(call.output)")
        }
    }

    /// The upstream and downstream `lost` counts of netsim's closing statistics.
    static func netsimLosses(_ output: String) throws -> (upstream: Int, downstream: Int) {
        func lost(_ direction: String) throws -> Int {
            let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("\(direction): ") }, "no \(direction) line: \(output)")
            return try #require(line.firstMatch(of: /\slost (\d+)\s/).flatMap { Int($0.1) }, "\(line)")
        }
        return (try lost("upstream"), try lost("downstream"))
    }

    /// Polls /proc/net/udp until a socket is bound to 127.0.0.1:`port` (coturn opens its listeners
    /// just after it says its servers run).
    static func waitForUDPListener(port: UInt16, timeout: Duration = .seconds(5)) async throws {
        let local = String(format: "0100007F:%04X", port)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let table = (try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? ""
            if table.split(separator: "\n").contains(where: { $0.split(separator: " ").dropFirst().first == Substring(local) }) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ProcessTimeout(description: "nothing listens on UDP 127.0.0.1:\(port)")
    }
}
