import Dispatch
import Foundation
import NetworkConditioner
import ParleyNet

/// `parley netsim`: a UDP relay through a simulated network (`NetworkRelay`: one outbound socket
/// and one pair of conditioners per client), both directions with the same conditions, with
/// optional scheduled outages and rate changes, until SIGINT or SIGTERM; then it prints what it did and exits 0.
enum NetsimCommand {
    static let options: Set<String> = ["listen", "forward", "loss", "burst", "delay-ms", "jitter-ms", "reorder",
                                       "reorder-delay-ms", "duplicate", "rate-kbps", "queue", "seed",
                                       "outage-at", "outage-for", "rate-at"]

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, options: options, flags: ["allow-reordering"])
        _ = try parsed.positionals(0, "no arguments")
        guard let listen = parsed.value("listen") else { throw UsageError("netsim: --listen HOST:PORT is required") }
        guard let forward = parsed.value("forward") else { throw UsageError("netsim: --forward HOST:PORT is required") }
        let (listenHost, listenPort) = try hostAndPort(listen, option: "listen")
        let (forwardHost, forwardPort) = try hostAndPort(forward, option: "forward")
        let conditions = try conditions(parsed)
        let seed = try parsed.integer("seed").map { UInt64(bitPattern: $0) } ?? 1
        let target = try SocketAddress.resolve(host: forwardHost, port: forwardPort)
        let outages = try NetsimOutages(parsed)
        let rates = try NetsimRateChanges(parsed)

        // Catch the signals before saying we are ready, so none is missed.
        Interruption.shared.catchSignals()
        let relay = try NetworkRelay(listenHost: listenHost, listenPort: listenPort, forwardTo: target,
                                     upstream: conditions, seed: seed)
        // One line on stdout says where the relay is, so scripts can wait for it.
        FileHandle.standardOutput.write(Data(
            "parley netsim relaying \(listenHost):\(relay.localPort) -> \(target) seed \(seed)\n".utf8))
        let schedule = outages.start(on: relay)
        let rateSchedule = rates.start(on: relay)
        _ = Interruption.shared.waitSynchronously()
        schedule.cancel()
        rateSchedule.cancel()
        let statistics = relay.stop()
        var report = line("upstream", statistics.upstream) + line("downstream", statistics.downstream)
            + "buffer-dropped \(statistics.droppedNoBuffer) client-limit-dropped \(statistics.droppedClientLimit) "
            + "outage-dropped \(statistics.droppedByOutage) clients \(statistics.clientsSeen) forgotten \(statistics.clientsForgotten)\n"
        for client in statistics.clients {
            report += "client \(client.number) \(client.address) via port \(client.outboundPort): outage-dropped \(client.droppedByOutage)\n"
                + "  " + line("upstream", client.upstream) + "  " + line("downstream", client.downstream)
        }
        FileHandle.standardOutput.write(Data(report.utf8))
        return 0
    }

    /// The conditions the options describe.
    static func conditions(_ parsed: Arguments) throws(UsageError) -> NetworkConditions {
        var conditions = NetworkConditions()
        let loss = try number(parsed, "loss", max: 100) ?? 0
        if let burst = try number(parsed, "burst", max: 1_000_000) {
            guard burst >= 1 else { throw UsageError("--burst is a mean burst length in packets, at least 1") }
            guard loss > 0 else { throw UsageError("--burst needs --loss") }
            conditions.loss = NetworkConditions.loss(percent: loss, meanBurstLength: burst)
        } else {
            conditions.loss = NetworkConditions.loss(percent: loss)
        }
        conditions.delayMicroseconds = try micros(parsed, "delay-ms") ?? 0
        conditions.jitterMicroseconds = try micros(parsed, "jitter-ms") ?? 0
        conditions.allowsReordering = parsed.has("allow-reordering")
        conditions.reorderPercent = try number(parsed, "reorder", max: 100) ?? 0
        conditions.reorderDelayMicroseconds = try micros(parsed, "reorder-delay-ms") ?? conditions.reorderDelayMicroseconds
        conditions.duplicatePercent = try number(parsed, "duplicate", max: 100) ?? 0
        if let kbps = try number(parsed, "rate-kbps", max: 100_000_000) {
            guard kbps > 0 else { throw UsageError("--rate-kbps must be positive") }
            conditions.rateBitsPerSecond = Int64(kbps * 1000)
        }
        if let queue = try parsed.integer("queue") {
            guard queue >= 1, queue <= 1_000_000 else { throw UsageError("--queue must be 1 to 1000000 packets") }
            conditions.queueLimitPackets = Int(queue)
        }
        return conditions
    }

    /// `HOST:PORT` or `[IPv6]:PORT`.
    static func hostAndPort(_ text: String, option: String) throws(UsageError) -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { throw UsageError("--\(option) must be HOST:PORT, got \(text)") }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw UsageError("--\(option) must be HOST:PORT, got \(text)") }
        return (host, port)
    }

    private static func number(_ parsed: Arguments, _ name: String, max: Double) throws(UsageError) -> Double? {
        guard let text = parsed.value(name) else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0, value <= max else {
            throw UsageError("--\(name) must be a number from 0 to \(Int(max)), got \(text)")
        }
        return value
    }

    private static func micros(_ parsed: Arguments, _ name: String) throws(UsageError) -> Int64? {
        try number(parsed, name, max: 3_600_000).map { Int64(($0 * 1000).rounded()) }
    }

    private static func line(_ name: String, _ s: NetworkConditionerStatistics) -> String {
        let mean = String(format: "%.1f", s.meanDelayMicroseconds / 1000), max = String(format: "%.1f", Double(s.maxDelayMicroseconds) / 1000)
        return "\(name): submitted \(s.submitted) delivered \(s.delivered) lost \(s.droppedByLoss) queue-dropped \(s.droppedByQueue) "
            + "duplicated \(s.duplicated) reordered \(s.reordered) out-of-order \(s.deliveredOutOfOrder) delay-ms mean \(mean) max \(max)\n"
    }
}
