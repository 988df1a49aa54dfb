import NetworkConditioner
import ParleyNet
import ParleyTestSupport
import Testing

/// `NetworkRelay` as a NAT: several clients, each with its own socket and conditioners; the client
/// limit; idle clients; outages.
@Suite(.timeLimit(.minutes(1)), .tags(.realTime)) struct NetworkRelayClientsTests {
    /// What three clients got back through a lossy relay in front of an echo server.
    private struct ThreeClients {
        /// Per client, the offsets (0..<300) of the echoes it received.
        var received: [[Int]]
        var statistics: NetworkRelay.Statistics
        var echoSenderPorts: Set<Int>
    }

    /// Three clients send 300 datagrams each (client i numbers them from i·10 000) through 20 %
    /// loss each way to an echo server. Clients speak first in order 0, 1, 2, so their numbers are.
    private func runThreeClients(seed: UInt64) async throws -> ThreeClients {
        let rig = try EchoBehindRelay(clients: 3) {
            try NetworkRelay(forwardTo: $0, upstream: NetworkConditions(loss: .random(percent: 20)), seed: seed)
        }
        defer { rig.close() }
        let relay = rig.relay, arrivals = rig.arrivals
        for i in 0..<3 {
            rig.send(i, [i * 10_000])
            let known = await holdsEventually { await relay.statistics().clients.count == i + 1 }
            try #require(known, "client \(i) not seen")
        }
        for start in stride(from: 1, to: 300, by: 30) {
            for i in 0..<3 { rig.send(i, (start..<min(start + 30, 300)).map { i * 10_000 + $0 }) }
            try await Task.sleep(for: .milliseconds(2))
        }
        let settled = await holdsEventually {
            let stats = await relay.statistics()
            return stats.clients.count == 3 && zip(stats.clients, arrivals).allSatisfy { client, arrived in
                client.upstream.submitted == 300 && client.downstream.submitted == client.upstream.delivered
                    && arrived.count == client.downstream.delivered
            }
        }
        let statistics = await relay.statistics()
        try #require(settled, "\(statistics.clients)")
        let received = arrivals.enumerated().map { i, a in a.sequences.map { $0 - i * 10_000 } }
        return ThreeClients(received: received, statistics: statistics, echoSenderPorts: rig.echo.senderPorts)
    }

    /// Each client has its own outbound socket (the echo server sees three senders), gets only its
    /// own replies, and loses its own packets (independent conditioners); the totals add up; the
    /// same seed gives the same losses again.
    @Test func eachClientHasItsOwnSocketConditionersAndReplies() async throws {
        let run = try await runThreeClients(seed: 77)
        let stats = run.statistics
        #expect(stats.clients.map(\.number) == [0, 1, 2])
        #expect(stats.clientsSeen == 3 && stats.clientsForgotten == 0 && stats.droppedClientLimit == 0)
        #expect(run.echoSenderPorts == Set(stats.clients.map(\.outboundPort)) && run.echoSenderPorts.count == 3)
        for received in run.received {
            #expect(received.allSatisfy { (0..<300).contains($0) }, "a client got another client's replies")
            // 20 % each way: about 64 % come back.
            #expect(abs(Double(received.count) / 300 - 0.64) < 0.12, "\(received.count) of 300 came back")
        }
        #expect(Set([run.received[0], run.received[1], run.received[2]]).count == 3, "clients lost the same packets")
        #expect(stats.upstream.submitted == 900 && stats.upstream.delivered == stats.clients.map(\.upstream.delivered).reduce(0, +))
        #expect(stats.downstream.delivered == run.received.map(\.count).reduce(0, +))
        let again = try await runThreeClients(seed: 77)
        #expect(again.received == run.received, "the same seed lost different packets")
    }

    /// With room for two clients, a third one's datagrams are dropped and counted.
    @Test func clientsBeyondTheLimitAreDroppedAndCounted() async throws {
        let rig = try EchoBehindRelay(clients: 3) { try NetworkRelay(forwardTo: $0, maxClients: 2) }
        defer { rig.close() }
        let relay = rig.relay, arrivals = rig.arrivals
        for i in 0..<3 {
            rig.send(i, 0..<10)
            let handled = await holdsEventually {
                let stats = await relay.statistics()
                return stats.upstream.submitted + stats.droppedClientLimit == 10 * (i + 1)
            }
            try #require(handled, "client \(i)'s datagrams not handled")
        }
        let settled = await holdsEventually {
            await relay.statistics().droppedClientLimit == 10 && arrivals.filter { $0.count == 10 }.count == 2
        }
        let stats = await relay.statistics()
        try #require(settled, "dropped \(stats.droppedClientLimit), arrivals \(arrivals.map(\.count))")
        #expect(stats.clients.count == 2 && stats.clientsSeen == 2 && stats.upstream.submitted == 20)
        #expect(rig.echo.senderPorts.count == 2)
    }

    /// A client idle for the timeout is forgotten (its counters stay in the totals); when it speaks
    /// again it is a new client.
    @Test func idleClientsAreForgottenAndComeBackAsNew() async throws {
        let rig = try EchoBehindRelay(clients: 1) { try NetworkRelay(forwardTo: $0, clientIdleTimeout: .milliseconds(200)) }
        defer { rig.close() }
        let relay = rig.relay, arrivals = rig.arrivals[0]
        rig.send(0, 0..<5)
        try #require(await holdsEventually { arrivals.count == 5 })
        let forgotten = await holdsEventually {
            let stats = await relay.statistics()
            return stats.clientsForgotten == 1 && stats.clients.isEmpty
        }
        let afterIdle = await relay.statistics()
        try #require(forgotten, "\(afterIdle)")
        rig.send(0, 5..<10)
        try #require(await holdsEventually { arrivals.count == 10 })
        let stats = await relay.statistics()
        #expect(stats.clientsSeen == 2 && stats.clients.map(\.number) == [1])
        #expect(stats.upstream.submitted == 10 && stats.downstream.delivered == 10, "totals keep the forgotten client's")
        #expect(arrivals.sequences == Array(0..<10))
    }

    /// An outage drops what is in flight, and everything either way while it lasts, counted; the
    /// client's mapping stays, and traffic flows again once it is lifted.
    @Test func outageDropsBothWaysUntilLifted() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let atTarget = Arrivals()
        let target = try UDPSocket(loop: group.loops[0]) { atTarget.record($0) }
        defer { target.close() }
        // Three seconds upstream, so the first datagrams are surely still in flight when the outage
        // begins; none downstream.
        let relay = try NetworkRelay(forwardTo: try SocketAddress.resolve(host: "127.0.0.1", port: target.localPort),
                                     upstream: NetworkConditions(delayMicroseconds: 3_000_000), downstream: NetworkConditions())
        defer { relay.stop() }
        let relayAddress = try SocketAddress.resolve(host: "127.0.0.1", port: relay.localPort)
        let atClient = Arrivals()
        let client = try UDPSocket(loop: group.loops[0]) { atClient.record($0) }
        defer { client.close() }

        client.send((0..<20).map { Datagram(address: relayAddress, bytes: datagram($0)) })
        try #require(await holdsEventually { await relay.statistics().upstream.submitted == 20 })
        relay.setOutage(true)
        #expect(relay.isOutage)
        try #require(await holdsEventually { await relay.statistics().droppedByOutage == 20 }, "in-flight datagrams not dropped")
        client.send((20..<30).map { Datagram(address: relayAddress, bytes: datagram($0)) })
        try #require(await holdsEventually { await relay.statistics().droppedByOutage == 30 }, "upstream not blocked")
        let mapping = await relay.statistics().clients.first
        let outbound = try SocketAddress.resolve(host: "127.0.0.1", port: try #require(mapping).outboundPort)
        target.send((100..<110).map { Datagram(address: outbound, bytes: datagram($0)) })
        try #require(await holdsEventually { await relay.statistics().droppedByOutage == 40 }, "downstream not blocked")

        relay.setOutage(false)
        #expect(!relay.isOutage)
        client.send((30..<40).map { Datagram(address: relayAddress, bytes: datagram($0)) })
        try #require(await holdsEventually { atTarget.count == 10 })
        target.send((200..<210).map { Datagram(address: outbound, bytes: datagram($0)) })
        try #require(await holdsEventually { atClient.count == 10 })
        #expect(atTarget.sequences == Array(30..<40))
        #expect(atClient.sequences == Array(200..<210))
        let stats = await relay.statistics()
        #expect(stats.clients.count == 1 && stats.clients[0].droppedByOutage == 40 && stats.droppedByOutage == 40)
        #expect(stats.upstream.submitted == 30 && stats.upstream.delivered == 10 && stats.downstream.delivered == 10)
    }
}
