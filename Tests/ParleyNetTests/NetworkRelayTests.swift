import NetworkConditioner
import ParleyNet
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct NetworkRelayTests {
    /// 2,000 datagrams through 10 % random loss: the sink gets what the relay delivered, about 90 %.
    @Test func lossyRelayDeliversAboutNinetyPercent() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let arrivals = Arrivals()
        let sink = try UDPSocket(loop: group.loops[0]) { arrivals.record($0) }
        let relay = try NetworkRelay(forwardTo: try SocketAddress.resolve(host: "127.0.0.1", port: sink.localPort),
                                     upstream: NetworkConditions(loss: .random(percent: 10)), seed: 2024)
        defer { relay.stop() }
        let client = try UDPSocket(loop: group.loops[0]) { _ in }
        let relayAddress = try SocketAddress.resolve(host: "127.0.0.1", port: relay.localPort)
        for start in stride(from: 0, to: 2_000, by: 50) {
            client.send((start..<start + 50).map { Datagram(address: relayAddress, bytes: datagram($0)) })
            try await Task.sleep(for: .milliseconds(2))
        }
        let settled = await holdsEventually {
            let stats = await relay.statistics()
            return stats.upstream.submitted == 2_000 && arrivals.count == stats.upstream.delivered
        }
        let stats = await relay.statistics()
        try #require(settled, "submitted \(stats.upstream.submitted), delivered \(stats.upstream.delivered), arrived \(arrivals.count)")
        #expect(stats.upstream.droppedByLoss + stats.upstream.delivered == 2_000)
        #expect(abs(Double(arrivals.count) / 2_000 - 0.9) < 0.03, "arrived \(arrivals.count)")
        #expect(stats.droppedNoBuffer == 0)
        // Without jitter, order is kept.
        let order = arrivals.list.withLock { $0.map(\.sequence) }
        #expect(order == order.sorted())
        client.close()
        sink.close()
    }

    /// 40 ms each way: echoed datagrams come back through the relay after at least 80 ms.
    @Test func delayIsAppliedBothWaysAndRepliesComeBack() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let echo = try EchoServer(loop: group.loops[0])
        let relay = try NetworkRelay(forwardTo: try SocketAddress.resolve(host: "127.0.0.1", port: echo.socket.localPort),
                                     upstream: NetworkConditions(delayMicroseconds: 40_000), seed: 1)
        defer { relay.stop() }
        let arrivals = Arrivals()
        let client = try UDPSocket(loop: group.loops[0]) { arrivals.record($0) }
        let relayAddress = try SocketAddress.resolve(host: "127.0.0.1", port: relay.localPort)
        var sent: [ContinuousClock.Instant] = []
        for i in 0..<20 {
            sent.append(.now)
            client.send([Datagram(address: relayAddress, bytes: datagram(i, length: 40))])
            try await Task.sleep(for: .milliseconds(10))
        }
        let back = await holdsEventually { arrivals.count == 20 }
        try #require(back, "only \(arrivals.count) of 20 replies")
        let rtts = arrivals.list.withLock { $0.map { ($0.at - sent[$0.sequence]) / .milliseconds(1) } }.sorted()
        #expect(rtts.first! >= 80, "fastest round trip \(rtts.first!) ms")
        #expect(rtts[10] < 80 + 60, "median round trip \(rtts[10]) ms")
        let stats = await relay.statistics()
        #expect(stats.upstream.delivered == 20 && stats.downstream.delivered == 20)
        #expect(stats.upstream.meanDelayMicroseconds >= 40_000 && stats.downstream.maxDelayMicroseconds <= 41_000)
        client.close()
        echo.socket.close()
    }

    /// Jitter without reordering keeps the order; stopping returns the final counters.
    @Test func jitterWithoutReorderingKeepsOrder() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let arrivals = Arrivals()
        let sink = try UDPSocket(loop: group.loops[0]) { arrivals.record($0) }
        let conditions = NetworkConditions(delayMicroseconds: 5_000, jitterMicroseconds: 20_000)
        let relay = try NetworkRelay(forwardTo: try SocketAddress.resolve(host: "127.0.0.1", port: sink.localPort),
                                     upstream: conditions, seed: 9)
        let client = try UDPSocket(loop: group.loops[0]) { _ in }
        let relayAddress = try SocketAddress.resolve(host: "127.0.0.1", port: relay.localPort)
        for i in 0..<300 {
            client.send([Datagram(address: relayAddress, bytes: datagram(i))])
            if i % 10 == 9 { try await Task.sleep(for: .milliseconds(2)) }
        }
        let all = await holdsEventually { arrivals.count == 300 }
        try #require(all, "only \(arrivals.count) of 300")
        #expect(arrivals.list.withLock { $0.map(\.sequence) } == Array(0..<300))
        relay.stop()
        let stats = await relay.statistics()
        #expect(stats.upstream.delivered == 300 && stats.upstream.deliveredOutOfOrder == 0)
        #expect(stats.upstream.maxDelayMicroseconds <= 25_000 && stats.upstream.maxDelayMicroseconds > 15_000)
        client.close()
        sink.close()
    }
}
