import DataChannel
import Dispatch
import Foundation
import ParleyNet
import Synchronization
import WebRTC

/// Data tracks through the SFU: one publisher and `subscribers` WebRTC clients (`PeerConnection`s
/// with data channels, on one client loop) in room sessions of an in-process
/// `MediaTransportServer`; the publisher's channel is routed to a channel toward each subscriber
/// (`routeData`), as the room service routes a data track. The publisher sends `messages` binary
/// messages of `size` bytes, each starting with its send time, at most `window` ahead of the
/// slowest subscriber. Figures: messages/s published and delivered, the media loop thread's CPU
/// per delivered message, and latency publisher → SFU → subscriber (p50/p99, one clock). Pinning
/// as in `ForwardBench` (media loop on CPU 0, the clients on CPU 1).
enum RoomsDataBench {
    /// What one subscriber counted.
    final class Tally: Sendable {
        struct State {
            var messages = 0
            var stream: UInt16?
            var acknowledged = false
            var latencies: [Double] = []
        }

        let state = Mutex(State())
    }

    static func run(subscribers: Int, messages: Int, size: Int, window: Int, pin: Bool) async throws {
        let pinned = pin && sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        if pinned { ForwardBench.setAffinity(cpu: 1) }
        var configuration = MediaTransportServer.Configuration(host: "127.0.0.1")
        configuration.roomDataBitrate = 0  // the forwarding itself is measured, not the cap
        let server = try MediaTransportServer(configuration: configuration)
        if pinned { await ForwardBench.onLoop(server.loop) { ForwardBench.setAffinity(cpu: 0) } }
        let clientLoop = try EventLoop(name: "bench-data")
        if pinned { await ForwardBench.onLoop(clientLoop) { ForwardBench.setAffinity(cpu: 1) } }
        print("# Rooms data tracks (1 publisher → \(subscribers) subscriber(s), \(messages) messages of \(size) bytes, "
              + "at most \(window) ahead of the slowest; " + (pinned ? "media loop pinned to CPU 0, clients to CPU 1)" : "unpinned)"))

        let publisher = try await join(server, loop: clientLoop)
        var receivers: [(pc: PeerConnection, id: String, tally: Tally)] = []
        for _ in 0..<subscribers { receivers.append(try await join(server, loop: clientLoop)) }
        guard let stream = await publisher.pc.openDataChannel(label: "bench"),
              await waitFor({ publisher.tally.state.withLock { $0.acknowledged } }) else {
            throw BenchFailure("the publisher's channel did not open")
        }
        for receiver in receivers {
            guard await server.routeData(DataChannelAddress(session: publisher.id, label: "bench"),
                                         to: DataChannelAddress(session: receiver.id, label: "MTbench")) else {
                throw BenchFailure("routeData refused")
            }
        }
        let tallies = receivers.map(\.tally)
        guard await waitFor({ tallies.allSatisfy { t in t.state.withLock { $0.stream != nil } } }) else {
            throw BenchFailure("the subscribers' channels did not open")
        }

        let cpuBefore = await ForwardBench.onLoop(server.loop) { ForwardBench.threadCPUSeconds() }
        let start = DispatchTime.now().uptimeNanoseconds
        var sent = 0
        while sent < messages {
            let slowest = tallies.map { t in t.state.withLock { $0.messages } }.min() ?? 0
            if sent - slowest >= window {
                try await Task.sleep(for: .microseconds(200))
                continue
            }
            let count = min(100, messages - sent, window - (sent - slowest))
            let now = DispatchTime.now().uptimeNanoseconds
            let batch = (0..<count).map { _ in stamped(now, size: size) }
            let taken = await publisher.pc.sendData(batch, isBinary: true, on: stream)
            sent += taken
            if taken < count { try await Task.sleep(for: .microseconds(200)) }
        }
        _ = await waitFor(seconds: 60) { tallies.allSatisfy { t in t.state.withLock { $0.messages } >= messages } }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = await ForwardBench.onLoop(server.loop) { ForwardBench.threadCPUSeconds() } - cpuBefore
        let delivered = tallies.map { t in t.state.withLock { $0.messages } }.reduce(0, +)
        let latencies = tallies.flatMap { t in t.state.withLock { $0.latencies } }.sorted()
        func percentile(_ q: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] }
        var dropped = 0
        for receiver in receivers { dropped += await server.session(id: receiver.id)?.counters.dataChannelsDropped ?? 0 }
        print(String(format: "published %.0f messages/s, delivered %.0f messages/s (%d of %d), %.1f s", Double(sent) / elapsed,
                     Double(delivered) / elapsed, delivered, messages * subscribers, elapsed))
        print(String(format: "media loop thread CPU %.2f s (%.0f %% of a core): %.2f µs per delivered message, %.0f delivered per CPU-second",
                     cpu, 100 * cpu / elapsed, delivered > 0 ? cpu * 1e6 / Double(delivered) : 0, cpu > 0 ? Double(delivered) / cpu : 0))
        print(String(format: "latency publisher → SFU → subscriber p50 %.2f ms, p99 %.2f ms (%d samples); channels dropped %d",
                     percentile(0.5), percentile(0.99), latencies.count, dropped))
        await publisher.pc.close()
        for receiver in receivers { await receiver.pc.close() }
        clientLoop.stop()
        await server.shutdown()
    }

    /// A client with a data channel section in a room session, counting what it receives.
    static func join(_ server: MediaTransportServer, loop: EventLoop) async throws -> (pc: PeerConnection, id: String, tally: Tally) {
        var configuration = PeerConnection.Configuration(hostAddresses: ["127.0.0.1"])
        configuration.offerDataChannels = true
        let pc = try PeerConnection(configuration: configuration, loop: loop)
        let answer = try await server.createRoomSession(offer: try await pc.createOffer()) { _ in }
        try await pc.setRemoteAnswer(answer.sdp)
        guard await pc.waitUntilConnected(timeout: .seconds(10)) else { throw BenchFailure("a client did not connect") }
        let tally = Tally()
        Task {
            for await event in pc.dataEvents {
                switch event {
                case .opened(let channel, true): tally.state.withLock { $0.stream = channel.stream }
                case .opened(_, false): tally.state.withLock { $0.acknowledged = true }
                case .message(_, let data, _):
                    let now = DispatchTime.now().uptimeNanoseconds
                    tally.state.withLock { s in
                        s.messages += 1
                        if s.messages % 10 == 0, s.latencies.count < 100_000, data.count >= 8 {
                            let sentAt = data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                            s.latencies.append(Double(now &- sentAt) / 1e6)
                        }
                    }
                default: break
                }
            }
        }
        return (pc, answer.id, tally)
    }

    /// A message of `size` bytes whose first 8 are `time`.
    static func stamped(_ time: UInt64, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0x61, count: max(size, 8))
        withUnsafeBytes(of: time) { for i in 0..<8 { bytes[i] = $0[i] } }
        return bytes
    }

    static func waitFor(seconds: Double = 10, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }
}
