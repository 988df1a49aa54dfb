import ParleyNet
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct UDPSocketTests {
    @Test func batchedSendAndReceive() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let receiver = try UDPSocket(loop: group.next()) { datagrams in
            for datagram in datagrams { continuation.yield(datagram.bytes) }
        }
        let sender = try UDPSocket(loop: group.next()) { _ in }
        let target = try SocketAddress.resolve(host: "127.0.0.1", port: receiver.localPort)
        sender.send((0..<20).map { Datagram(address: target, bytes: [UInt8($0), 0xAB]) })
        var received: [[UInt8]] = []
        for await bytes in stream {
            received.append(bytes)
            if received.count == 20 { break }
        }
        #expect(Set(received.map { $0[0] }) == Set(0..<20))
        sender.close()
        receiver.close()
    }
}
