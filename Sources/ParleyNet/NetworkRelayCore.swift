import NetworkConditioner
import ParleyCore
import Synchronization

/// Whether a `NetworkRelay` is blacked out: set from any thread, read on the loop per batch.
final class NetworkRelayOutage: Sendable {
    private let blocked = Atomic<Bool>(false)

    var isBlocked: Bool { blocked.load(ordering: .acquiring) }

    /// Sets it; returns whether it changed.
    func set(_ value: Bool) -> Bool { blocked.exchange(value, ordering: .acquiringAndReleasing) != value }
}

/// The loop-confined state of a `NetworkRelay`: the listening socket, the clients (each with its
/// outbound socket and two conditioners, carrying indices into the shared packet pool) and the
/// timers.
///
/// Loop-confined: the socket handlers and every method run on `loop`'s thread only (`NetworkRelay`
/// holds it in a `LoopBound`).
final class NetworkRelayCore {
    typealias Direction = NetworkRelayClient.Direction

    /// What a relay is told at its start.
    struct Settings {
        var upstream: NetworkConditions
        var downstream: NetworkConditions
        var seed: UInt64
        var maxDatagramBytes: Int
        var bufferedPackets: Int
        var maxClients: Int
        var clientIdleMicroseconds: Int64
    }

    let loop: EventLoop
    let target: SocketAddress
    let outage: NetworkRelayOutage
    private var settings: Settings
    private let pool: NetworkRelayPacketPool
    private var listener: UDPSocket?
    private var clients: [SocketAddress: NetworkRelayClient] = [:]
    private var nextClientNumber = 0
    /// What forgotten clients did, kept for the totals.
    private var forgotten = NetworkRelay.Statistics()
    private var droppedNoBuffer = 0
    private var droppedClientLimit = 0
    /// Datagrams dropped by an outage that no client was charged with (from unknown clients).
    private var droppedByOutageUnassigned = 0
    private var sweepTimer: TimerQueue.ID?
    private var closed = false

    init(loop: EventLoop, target: SocketAddress, settings: Settings, outage: NetworkRelayOutage) {
        self.loop = loop
        self.target = target
        self.settings = settings
        self.outage = outage
        pool = NetworkRelayPacketPool(count: settings.bufferedPackets, slotBytes: settings.maxDatagramBytes)
    }

    /// Sets the listening socket (on the loop, right after it is registered); anything that
    /// arrived before waits in its conditioner until now.
    func attach(listener: UDPSocket) {
        self.listener = listener
        for client in clients.values { deliverDue(client, .downstream) }
    }

    var statistics: NetworkRelay.Statistics {
        var statistics = forgotten
        statistics.droppedNoBuffer = droppedNoBuffer
        statistics.droppedClientLimit = droppedClientLimit
        statistics.droppedByOutage += droppedByOutageUnassigned
        statistics.clientsSeen = nextClientNumber
        for client in clients.values.sorted(by: { $0.number < $1.number }) {
            let share = client.statistics
            statistics.upstream.add(share.upstream)
            statistics.downstream.add(share.downstream)
            statistics.droppedByOutage += share.droppedByOutage
            statistics.clients.append(share)
        }
        return statistics
    }

    func fromClient(_ batch: UDPReceivedBatch) {
        guard !closed else { return }
        let now = Self.now()
        let blocked = outage.isBlocked
        var touched: NetworkRelayClient?
        for i in 0..<batch.count {
            let datagram = batch[i]
            guard let client = clients[datagram.address] ?? (blocked ? nil : admitClient(datagram.address, now: now)) else {
                if blocked { droppedByOutageUnassigned += 1 } else { droppedClientLimit += 1 }
                continue
            }
            client.lastActivity = now
            if blocked {
                client.droppedByOutage += 1
                continue
            }
            admit(UnsafeRawBufferPointer(datagram.bytes), client, .upstream, at: now)
            // A batch mixes clients; deliver for each as it changes.
            if let touched, touched !== client { deliverDue(touched, .upstream) }
            touched = client
        }
        if let touched { deliverDue(touched, .upstream) }
    }

    func fromTarget(_ batch: UDPReceivedBatch, for client: NetworkRelayClient) {
        guard !closed, clients[client.address] === client else { return }
        let now = Self.now()
        client.lastActivity = now
        if outage.isBlocked {
            client.droppedByOutage += batch.count
            return
        }
        for i in 0..<batch.count { admit(UnsafeRawBufferPointer(batch[i].bytes), client, .downstream, at: now) }
        deliverDue(client, .downstream)
    }

    /// A new rate limit for both directions (nil: none), for every client and those to come;
    /// packets already scheduled keep their times.
    func setRate(bitsPerSecond: Int64?) {
        settings.upstream.rateBitsPerSecond = bitsPerSecond
        settings.downstream.rateBitsPerSecond = bitsPerSecond
        for client in clients.values {
            for index in client.paths.indices { client.paths[index].conditioner.conditions.rateBitsPerSecond = bitsPerSecond }
        }
    }

    /// The outage began: drops what every client has in flight, both ways.
    func outageBegan() {
        guard !closed else { return }
        for client in clients.values {
            dropInFlight(client, .upstream)
            dropInFlight(client, .downstream)
        }
    }

    /// Closes the sockets and cancels the timers; returns the final counters.
    func shutdown() -> NetworkRelay.Statistics {
        if !closed {
            closed = true
            loop.cancelTimer(sweepTimer)
            for client in clients.values {
                for path in client.paths { loop.cancelTimer(path.timer) }
                for d in 0..<client.paths.count { client.paths[d].conditioner.removeAll() }
                client.closeSocket()
            }
            listener?.close()
            listener = nil
        }
        return statistics
    }

    /// A mapping for a new client, or nil when `maxClients` are relayed or its socket cannot open.
    private func admitClient(_ address: SocketAddress, now: Int64) -> NetworkRelayClient? {
        guard clients.count < settings.maxClients else { return nil }
        let seeds = NetworkRelayClient.seeds(relaySeed: settings.seed, number: nextClientNumber)
        let capacity = min(settings.bufferedPackets, 1024)
        let client = NetworkRelayClient(
            address: address, number: nextClientNumber,
            upstream: NetworkConditioner(conditions: settings.upstream, seed: seeds.upstream, capacity: capacity),
            downstream: NetworkConditioner(conditions: settings.downstream, seed: seeds.downstream, capacity: capacity),
            now: now)
        let bound = LoopBound(self, loop: loop), boundClient = LoopBound(client, loop: loop)
        do {
            client.socket = try UDPSocket.inPlace(host: target.isIPv6 ? "::" : "0.0.0.0", port: 0, loop: loop, batchSize: 16,
                                                  maxDatagramBytes: settings.maxDatagramBytes, sendBatchSize: 32) {
                bound.value.fromTarget($0, for: boundClient.value)
            }
        } catch {
            Log.warning(.core, "netsim: no outbound socket for \(address): \(error)")
            return nil
        }
        nextClientNumber += 1
        clients[address] = client
        armSweep()
        return client
    }

    private func admit(_ bytes: UnsafeRawBufferPointer, _ client: NetworkRelayClient, _ direction: Direction, at now: Int64) {
        guard let slot = pool.store(bytes) else {
            droppedNoBuffer += 1
            return
        }
        pool.setReferences(slot, client.paths[direction.rawValue].conditioner.submit(slot, length: bytes.count, at: now))
    }

    /// Sends what is due in `direction` for `client`, then sets the timer for what is left.
    private func deliverDue(_ client: NetworkRelayClient, _ direction: Direction) {
        guard !closed else { return }
        if outage.isBlocked {
            dropInFlight(client, direction)
            return
        }
        guard let socket = direction == .upstream ? client.socket : listener else { return }
        let destination = direction == .upstream ? target : client.address
        let now = Self.now()
        let batch = socket.sendBatch
        while let delivery = client.paths[direction.rawValue].conditioner.dequeueDue(at: now) {
            let bytes = pool.bytes(delivery.payload)
            batch.withUnsafeSlot(to: destination) { slot in
                slot.copyMemory(from: bytes)
                return bytes.count
            }
            pool.release(delivery.payload)
        }
        batch.flush()
        arm(client, direction, now: now)
    }

    /// Drops what `client` has in flight in `direction`, counting it as the outage's.
    private func dropInFlight(_ client: NetworkRelayClient, _ direction: Direction) {
        let d = direction.rawValue
        loop.cancelTimer(client.paths[d].timer)
        client.paths[d].timer = nil
        client.droppedByOutage += client.paths[d].conditioner.removeAll { pool.release($0) }
    }

    /// Makes sure a timer fires at the path's next delivery time.
    private func arm(_ client: NetworkRelayClient, _ direction: Direction, now: Int64) {
        let d = direction.rawValue
        guard let next = client.paths[d].conditioner.nextDeliveryTime else { return }
        if let deadline = client.paths[d].deadline, client.paths[d].timer != nil, deadline <= next { return }
        loop.cancelTimer(client.paths[d].timer)
        client.paths[d].deadline = next
        client.paths[d].timer = loop.scheduleTimer(after: .microseconds(max(next - now, 0))) { [self] in
            client.paths[d].timer = nil
            deliverDue(client, direction)
        }
    }

    /// While there are clients, checks a few times per idle timeout for ones to forget.
    private func armSweep() {
        guard sweepTimer == nil, !clients.isEmpty, !closed else { return }
        let period = max(settings.clientIdleMicroseconds / 4, 10_000)
        sweepTimer = loop.scheduleTimer(after: .microseconds(period)) { [self] in
            sweepTimer = nil
            forgetIdleClients(now: Self.now())
            armSweep()
        }
    }

    /// Forgets the clients nothing came from or for in `clientIdleMicroseconds`: their sockets
    /// close, what they had in flight is dropped (uncounted), their counters join the totals.
    private func forgetIdleClients(now: Int64) {
        for (address, client) in clients where now - client.lastActivity >= settings.clientIdleMicroseconds {
            for d in 0..<client.paths.count {
                loop.cancelTimer(client.paths[d].timer)
                client.paths[d].timer = nil
                client.paths[d].conditioner.removeAll { pool.release($0) }
            }
            client.closeSocket()
            let share = client.statistics
            forgotten.upstream.add(share.upstream)
            forgotten.downstream.add(share.downstream)
            forgotten.droppedByOutage += share.droppedByOutage
            forgotten.clientsForgotten += 1
            clients[address] = nil
        }
    }

    private static func now() -> Int64 { Int64(monotonicNanos() / 1_000) }
}
