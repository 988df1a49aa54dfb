import ParleyNet
import Synchronization

// Helpers of the NetworkRelay tests: numbered datagrams, a recording sink, an echo server.

/// Datagrams that arrived at a test socket: (4-byte sequence number, arrival time).
final class Arrivals: Sendable {
    let list = Mutex<[(sequence: Int, at: ContinuousClock.Instant)]>([])

    func record(_ datagrams: [Datagram]) {
        let now = ContinuousClock.now
        list.withLock { list in
            for d in datagrams where d.bytes.count >= 4 { list.append((sequenceNumber(d.bytes), now)) }
        }
    }

    var count: Int { list.withLock { $0.count } }
    var sequences: [Int] { list.withLock { $0.map(\.sequence) } }
}

func sequenceNumber(_ bytes: [UInt8]) -> Int {
    bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
}

func datagram(_ sequence: Int, length: Int = 160) -> [UInt8] {
    (0..<length).map { i in i < 4 ? UInt8(truncatingIfNeeded: sequence >> (24 - 8 * i)) : UInt8(truncatingIfNeeded: sequence &+ i) }
}

/// Waits (polling) until `condition` holds or `timeout` passes; returns whether it held.
func holdsEventually(_ timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while await !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// A UDP echo server: sends every datagram back to its sender, and remembers the senders' ports.
final class EchoServer: Sendable {
    /// The ports datagrams came from.
    final class Senders: Sendable {
        let ports = Mutex<Set<Int>>([])
    }

    let socket: UDPSocket
    let senders: Senders

    init(loop: EventLoop) throws {
        let holder = Mutex<UDPSocket?>(nil)
        let senders = Senders()
        self.senders = senders
        socket = try UDPSocket(loop: loop) { datagrams in
            senders.ports.withLock { ports in for d in datagrams { ports.insert(d.address.port) } }
            holder.withLock { $0 }?.send(datagrams)
        }
        holder.withLock { $0 = socket }
    }

    var senderPorts: Set<Int> { senders.ports.withLock { $0 } }
}


/// An echo server behind a relay, and `clients` sockets that record what comes back to them:
/// what most relay tests set up. `close()` ends it all.
final class EchoBehindRelay {
    let group: EventLoopGroup
    let echo: EchoServer
    let relay: NetworkRelay
    /// Where the clients send.
    let relayAddress: SocketAddress
    let arrivals: [Arrivals]
    let clients: [UDPSocket]

    /// `makeRelay` gets the echo server's address.
    init(clients count: Int, makeRelay: (SocketAddress) throws -> NetworkRelay) throws {
        let group = try EventLoopGroup(threads: 1)
        self.group = group
        do {
            echo = try EchoServer(loop: group.loops[0])
            relay = try makeRelay(try SocketAddress.resolve(host: "127.0.0.1", port: echo.socket.localPort))
            relayAddress = try SocketAddress.resolve(host: "127.0.0.1", port: relay.localPort)
            let arrivals = (0..<count).map { _ in Arrivals() }
            self.arrivals = arrivals
            clients = try arrivals.map { a in try UDPSocket(loop: group.loops[0]) { a.record($0) } }
        } catch {
            group.shutdown()
            throw error
        }
    }

    /// Client `i` sends datagrams numbered `sequences` to the relay.
    func send(_ i: Int, _ sequences: some Sequence<Int>) {
        clients[i].send(sequences.map { Datagram(address: relayAddress, bytes: datagram($0)) })
    }

    func close() {
        for client in clients { client.close() }
        relay.stop()
        echo.socket.close()
        group.shutdown()
    }
}
