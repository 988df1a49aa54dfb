import Foundation
import Glibc
import ParleyNet

/// One measured window of a rooms run, whichever SFU forwarded it.
struct RoomsFigures: Sendable {
    var wall = 0.0
    /// Packets the subscribers received (and unprotected) in the window.
    var received = 0.0
    /// Packets sent × subscribers.
    var expected = 0.0
    /// The SFU's own forwarded count, when it has one.
    var forwarded: Double?
    /// The SFU's CPU-seconds per second (Parley: its media loop thread; Janus: the whole process).
    var serverCPU = 0.0
    /// The whole process's CPU-seconds per second minus the load generator's thread (Parley, in process).
    var processCPU: Double?
    /// The load generator's thread, CPU-seconds per second.
    var clientCPU = 0.0
    var errors = 0
    var p50: Double?, p99: Double?

    var receivedPerSecond: Double { received / max(wall, 1e-9) }
    /// Received packets per SFU CPU-second.
    var perCPUSecond: Double { receivedPerSecond / max(serverCPU, 0.001) }
}

extension RoomsBench {
    /// Starts the publishers, warms up a second, then measures `seconds`: packets, the SFU's CPU
    /// (`serverCPU` is cumulative CPU-seconds), the load generator's thread CPU and the latencies.
    static func measure(seconds: Double, senders: [RoomPublisher], receivers: [RoomSubscriber], clientLoop: EventLoop,
                        inProcess: Bool = true, serverCPU: () async -> Double,
                        forwarded: (() async -> Int)?) async throws -> RoomsFigures {
        for sender in senders { clientLoop.execute { sender.start() } }
        try await Task.sleep(for: .seconds(1))  // warm-up
        func clientCPU() async -> Double { await ForwardBench.onLoop(clientLoop) { ForwardBench.threadCPUSeconds() } }
        let before = await counts(receivers, senders, loop: clientLoop)
        let forwardedBefore = await forwarded?()
        let (cpuBefore, clientBefore, processBefore) = (await serverCPU(), await clientCPU(), BenchSystem.cpuSeconds(pid: getpid()))
        let clock = ContinuousClock()
        let start = clock.now
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let after = await counts(receivers, senders, loop: clientLoop)
        let forwardedAfter = await forwarded?()
        let (cpuAfter, clientAfter, processAfter) = (await serverCPU(), await clientCPU(), BenchSystem.cpuSeconds(pid: getpid()))
        var f = RoomsFigures()
        f.wall = (clock.now - start).nanoseconds / 1e9
        for sender in senders { clientLoop.execute { sender.stop() } }
        let all = receivers
        let latencies = await ForwardBench.onLoop(clientLoop) { all.flatMap(\.latencies).sorted() }
        f.received = Double(after.received - before.received)
        f.expected = Double(after.sent - before.sent) * Double(receivers.count)
        if let forwardedBefore, let forwardedAfter { f.forwarded = Double(forwardedAfter - forwardedBefore) }
        f.serverCPU = (cpuAfter - cpuBefore) / f.wall
        f.clientCPU = (clientAfter - clientBefore) / f.wall
        if inProcess { f.processCPU = (processAfter - processBefore) / f.wall - f.clientCPU }
        f.errors = after.errors
        if !latencies.isEmpty {
            func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
            f.p50 = percentile(0.5)
            f.p99 = percentile(0.99)
        }
        return f
    }

    static func report(_ f: RoomsFigures, subscribers: Int, serverCPU label: String) {
        if let forwarded = f.forwarded {
            print("forwarded packets/s                           \(format(forwarded / f.wall))")
        }
        print("received by subscribers, packets/s            \(format(f.receivedPerSecond))")
        print("\(label.padding(toLength: 46, withPad: " ", startingAt: 0))\(String(format: "%.0f", f.serverCPU * 100)) % "
              + "of one core → \(format(f.perCPUSecond)) packets per server CPU-second")
        if let process = f.processCPU {
            print("process CPU except the load generator         \(String(format: "%.0f", process * 100)) % of one core → "
                  + "\(format(f.receivedPerSecond / max(process, 0.001))) packets per CPU-second")
        }
        print("CPU per subscriber                            "
              + "\(String(format: "%.2f", f.serverCPU * 1000 / Double(max(subscribers, 1)))) ms/s")
        print("load generator thread CPU                     \(String(format: "%.0f", f.clientCPU * 100)) % of one core")
        print("subscribers received \(format(f.received)) of \(format(f.expected)) sent × subscribers "
              + "(\(String(format: "%.2f", f.expected > 0 ? 100 * (1 - f.received / f.expected) : 0)) % missing), "
              + "SRTP errors \(f.errors)")
        if let p50 = f.p50, let p99 = f.p99 {
            print("added latency (publisher send → subscriber receive): p50 \(String(format: "%.3f", p50)) ms, "
                  + "p99 \(String(format: "%.3f", p99)) ms")
        }
    }
}
