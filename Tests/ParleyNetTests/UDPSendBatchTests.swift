import Glibc
import ParleyNet
import Synchronization
import Testing

/// Runs `body` on `loop`'s thread and returns its result.
private func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
}

/// Waits (polling) until `condition` holds or `timeout` passes; returns whether it held.
private func eventually(_ timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Datagram `seq`: its 4-byte big-endian sequence number, then a pattern derived from it, 20...219 bytes.
private func expectedDatagram(_ seq: Int) -> [UInt8] {
    let length = 20 + seq % 200
    return (0..<length).map { i in
        i < 4 ? UInt8(truncatingIfNeeded: seq >> (24 - 8 * i)) : UInt8(truncatingIfNeeded: seq &* 31 &+ i)
    }
}

@Suite(.timeLimit(.minutes(1))) struct UDPSendBatchTests {
    /// 1,000 datagrams queued through `UDPSendBatch` (half built in the slot, half appended) arrive
    /// intact and in order over loopback, received in place. Sent in bursts of 50 so the
    /// receiver's socket buffer never overflows.
    @Test func thousandDatagramsArriveIntactAndInOrder() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let received = Received()
        let receiver = try UDPSocket.inPlace(loop: group.loops[1]) { batch in
            received.list.withLock { list in for i in 0..<batch.count { list.append(Array(batch[i].bytes)) } }
        }
        let sender = try UDPSocket(loop: group.loops[0], sendBatchSize: 64) { _ in }
        let target = try SocketAddress.resolve(host: "127.0.0.1", port: receiver.localPort)
        let total = 1000, burst = 50
        for start in stride(from: 0, to: total, by: burst) {
            await onLoop(sender.loop) {
                let batch = sender.sendBatch
                for seq in start..<(start + burst) {
                    let datagram = expectedDatagram(seq)
                    if seq % 2 == 0 {
                        datagram.withUnsafeBytes { _ = batch.append(bytes: $0, to: target) }
                    } else {
                        batch.withUnsafeSlot(to: target) { slot in
                            slot.copyBytes(from: datagram)
                            return datagram.count
                        }
                    }
                }
                #expect(batch.count == burst)
                batch.flush()
                #expect(batch.count == 0)
            }
            let arrived = await eventually { received.list.withLock { $0.count } >= start + burst }
            try #require(arrived, "only \(received.list.withLock { $0.count }) of \(start + burst) datagrams arrived")
        }
        let all = received.list.withLock { $0 }
        #expect(all.count == total)
        for (seq, bytes) in all.enumerated() where bytes != expectedDatagram(seq) {
            Issue.record("datagram \(seq) differs (\(bytes.count) bytes, expected \(expectedDatagram(seq).count))")
            break
        }
        let stats = await onLoop(sender.loop) { sender.sendBatch.statistics }
        #expect(stats.sent == total)
        #expect(stats.syscalls == total / burst)  // one sendmmsg per flush
        #expect(stats.droppedFull == 0 && stats.sendErrors == 0 && stats.droppedOversize == 0)
        sender.close()
        receiver.close()
    }

    /// A full ring flushes itself to make room; an oversize datagram is refused and counted.
    @Test func fullRingFlushesAndOversizeIsRefused() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let count = Counter()
        let receiver = try UDPSocket.inPlace(loop: group.next()) { batch in count.add(batch.count) }
        let sender = try UDPSocket(loop: group.next(), maxDatagramBytes: 256, sendBatchSize: 8) { _ in }
        let target = try SocketAddress.resolve(host: "127.0.0.1", port: receiver.localPort)
        let stats = await onLoop(sender.loop) {
            let batch = sender.sendBatch
            for seq in 0..<20 { batch.append(expectedDatagram(seq), to: target) }
            #expect(batch.append([UInt8](repeating: 1, count: 257), to: target) == false)
            batch.flush()
            return batch.statistics
        }
        #expect(stats.sent == 20 && stats.droppedOversize == 1 && stats.droppedFull == 0)
        #expect(await eventually { count.value == 20 })
        sender.close()
        receiver.close()
    }

    @Test func socketAddressIsHashableByValue() throws {
        let a = try SocketAddress.resolve(host: "127.0.0.1", port: 5004)
        let b = try SocketAddress.resolve(host: "127.0.0.1", port: 5004)
        let c = try SocketAddress.resolve(host: "127.0.0.1", port: 5005)
        let d = try SocketAddress.resolve(host: "::1", port: 5004)
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != c && a != d)
        #expect(Set([a, b, c, d]).count == 3)
        a.withUnsafeIPBytes { #expect(Array($0) == [127, 0, 0, 1]) }
        d.withUnsafeIPBytes { #expect(Array($0) == [UInt8](repeating: 0, count: 15) + [1]) }
        let rebuilt = [UInt8]([127, 0, 0, 1]).withUnsafeBytes { SocketAddress(ipBytes: $0, port: 5004) }
        #expect(rebuilt == a)
        #expect(rebuilt?.description == "127.0.0.1:5004")
        #expect(a.withUnsafeSockaddrBytes { $0.count } == MemoryLayout<sockaddr_in>.size)
    }

    /// An echo server built on the in-place receive path and `UDPSendBatch` (the shape of the media
    /// server's packet path) echoes 2,200 datagrams intact, one `sendmmsg` per receive batch. Run it
    /// under heaptrack to check that the echo loop allocates nothing per datagram (see the report).
    @Test func echoOnInPlaceReceiveAndSendBatch() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let echoLoop = group.loops[0]
        let box = SocketBox()
        let echo = try UDPSocket.inPlace(loop: echoLoop) { batch in
            guard let socket = box.socket else { return }
            let out = socket.sendBatch
            for i in 0..<batch.count {
                let datagram = batch[i]
                out.append(bytes: UnsafeRawBufferPointer(datagram.bytes), to: datagram.address)
            }
            out.flush()
        }
        await onLoop(echoLoop) { box.socket = echo }
        let echoed = Counter()
        let client = try UDPSocket(loop: group.loops[1]) { echoed.add($0.count) }
        let target = try SocketAddress.resolve(host: "127.0.0.1", port: echo.localPort)

        func run(_ datagrams: Int) async throws {
            let start = echoed.value
            for burst in stride(from: 0, to: datagrams, by: 50) {
                client.send((burst..<burst + 50).map { Datagram(address: target, bytes: expectedDatagram($0)) })
                let done = await eventually { echoed.value >= start + burst + 50 }
                try #require(done, "echo stalled at \(echoed.value - start) of \(burst + 50)")
            }
        }
        try await run(200)  // warm-up: dictionary growth, lazy metadata
        try await run(Int(getenv("PARLEY_UDP_ECHO_COUNT").map { String(cString: $0) } ?? "") ?? 2000)
        let stats = await onLoop(echoLoop) { echo.sendBatch.statistics }
        #expect(stats.sent == echoed.value && stats.droppedFull == 0 && stats.syscalls <= stats.sent)
        client.close()
        echo.close()
    }
}

private final class Received: Sendable {
    let list = Mutex<[[UInt8]]>([])
}

private final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)
    var value: Int { atomic.load(ordering: .acquiring) }
    func add(_ n: Int) { atomic.add(n, ordering: .relaxed) }
}

private final class SocketBox: @unchecked Sendable {
    var socket: UDPSocket?
}
