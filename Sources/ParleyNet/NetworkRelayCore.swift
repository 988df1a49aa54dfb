import NetworkConditioner

/// The loop-confined state of a `NetworkRelay`: its sockets, one conditioner per direction (carrying
/// indices into the packet pool) and their timers.
///
/// Loop-confined: the socket handlers and every method run on `loop`'s thread only (`NetworkRelay`
/// holds it in a `LoopBound`).
final class NetworkRelayCore {
    /// One direction: a conditioner and the loop timer set for its next delivery.
    private struct Path {
        var conditioner: NetworkConditioner<Int>
        var timer: TimerQueue.ID?
        var deadline: Int64?
    }

    private enum Direction { case upstream, downstream }

    let loop: EventLoop
    let target: SocketAddress
    private let pool: NetworkRelayPacketPool
    private var upstream: Path
    private var downstream: Path
    private var listener: UDPSocket?
    private var outbound: UDPSocket?
    private var client: SocketAddress?
    private var droppedNoBuffer = 0
    private var droppedNoClient = 0
    private var closed = false

    init(loop: EventLoop, target: SocketAddress, pool: NetworkRelayPacketPool,
         upstream: NetworkConditioner<Int>, downstream: NetworkConditioner<Int>) {
        self.loop = loop
        self.target = target
        self.pool = pool
        self.upstream = Path(conditioner: upstream)
        self.downstream = Path(conditioner: downstream)
    }

    /// Sets the sockets (on the loop, right after they are registered); anything that arrived before
    /// waits in its conditioner until now.
    func attach(listener: UDPSocket, outbound: UDPSocket) {
        self.listener = listener
        self.outbound = outbound
        deliverDue(.upstream)
        deliverDue(.downstream)
    }

    var statistics: NetworkRelay.Statistics {
        var statistics = NetworkRelay.Statistics()
        statistics.upstream = upstream.conditioner.statistics
        statistics.downstream = downstream.conditioner.statistics
        statistics.droppedNoBuffer = droppedNoBuffer
        statistics.droppedNoClient = droppedNoClient
        return statistics
    }

    func fromClient(_ batch: UDPReceivedBatch) {
        guard !closed else { return }
        let now = Self.now()
        for i in 0..<batch.count {
            client = batch[i].address
            admit(UnsafeRawBufferPointer(batch[i].bytes), .upstream, at: now)
        }
        deliverDue(.upstream)
    }

    func fromTarget(_ batch: UDPReceivedBatch) {
        guard !closed else { return }
        guard client != nil else {
            droppedNoClient += batch.count
            return
        }
        let now = Self.now()
        for i in 0..<batch.count { admit(UnsafeRawBufferPointer(batch[i].bytes), .downstream, at: now) }
        deliverDue(.downstream)
    }

    /// Closes the sockets and cancels the timers; returns the final counters.
    func shutdown() -> NetworkRelay.Statistics {
        if !closed {
            closed = true
            loop.cancelTimer(upstream.timer)
            loop.cancelTimer(downstream.timer)
            upstream.conditioner.removeAll()
            downstream.conditioner.removeAll()
            listener?.close()
            outbound?.close()
        }
        return statistics
    }

    private func admit(_ bytes: UnsafeRawBufferPointer, _ direction: Direction, at now: Int64) {
        guard let slot = pool.store(bytes) else {
            droppedNoBuffer += 1
            return
        }
        let copies = direction == .upstream
            ? upstream.conditioner.submit(slot, length: bytes.count, at: now)
            : downstream.conditioner.submit(slot, length: bytes.count, at: now)
        pool.setReferences(slot, copies)
    }

    /// Sends what is due in `direction`, then sets the timer for what is left.
    private func deliverDue(_ direction: Direction) {
        guard !closed else { return }
        guard let socket = direction == .upstream ? outbound : listener,
              let destination = direction == .upstream ? target : client else { return }
        let now = Self.now()
        while let delivery = direction == .upstream ? upstream.conditioner.dequeueDue(at: now)
                                                    : downstream.conditioner.dequeueDue(at: now) {
            let bytes = pool.bytes(delivery.payload)
            socket.sendBatch.withUnsafeSlot(to: destination) { slot in
                slot.copyMemory(from: bytes)
                return bytes.count
            }
            pool.release(delivery.payload)
        }
        socket.sendBatch.flush()
        if direction == .upstream { arm(&upstream, .upstream, now: now) } else { arm(&downstream, .downstream, now: now) }
    }

    /// Makes sure a timer fires at the path's next delivery time.
    private func arm(_ path: inout Path, _ direction: Direction, now: Int64) {
        guard let next = path.conditioner.nextDeliveryTime else { return }
        if let deadline = path.deadline, path.timer != nil, deadline <= next { return }
        loop.cancelTimer(path.timer)
        path.deadline = next
        path.timer = loop.scheduleTimer(after: .microseconds(max(next - now, 0))) { [self] in
            if direction == .upstream { upstream.timer = nil } else { downstream.timer = nil }
            deliverDue(direction)
        }
    }

    private static func now() -> Int64 { Int64(monotonicNanos() / 1_000) }
}
