import Dispatch
import NetworkConditioner
import ParleyCore
import Synchronization

/// A UDP relay through a simulated network, for end-to-end tests of real processes (`parley
/// netsim`) and for in-process tests. It serves several clients as a NAT does: each source address
/// that sends to `localPort` gets a socket of its own toward `target` and a pair of
/// `NetworkConditioner`s (upstream and downstream, seeded from `seed` and the client's number, so a
/// run is repeatable); what the target sends to that socket goes back to that client. So a server
/// behind the relay sees one address per client, and every leg of a call crosses the simulated
/// network on its own.
///
/// Bounded: at most `maxClients` clients (datagrams from more are dropped and counted); a client
/// nothing came from or for in `clientIdleTimeout` is forgotten (its socket closed). `setOutage`
/// blacks the network out both ways while set.
///
/// One event loop owns the sockets, the conditioners and a fixed pool of packet buffers shared by
/// all clients; delivery times are kept with the loop's timers (millisecond resolution, never
/// early). A datagram that finds the pool full is dropped and counted.
public final class NetworkRelay: Sendable {
    /// The port clients send to.
    public let localPort: Int
    /// Where datagrams are forwarded.
    public let target: SocketAddress
    /// The loop that runs the relay.
    public let loop: EventLoop

    private let core: LoopBound<NetworkRelayCore>
    private let outage: NetworkRelayOutage
    private let ownsLoop: Bool
    private let finalStatistics = Mutex<Statistics?>(nil)

    /// Listens on `listenHost:listenPort` (0: ephemeral) and forwards to `target`. `downstream`
    /// defaults to the upstream conditions; each client's two directions draw from generators of
    /// their own (the first client's from `seed` and `seed + 1`). Runs on `loop`, or on a loop of
    /// its own that `stop()` ends.
    public init(listenHost: String = "127.0.0.1", listenPort: Int = 0, forwardTo target: SocketAddress,
                upstream: NetworkConditions = NetworkConditions(), downstream: NetworkConditions? = nil, seed: UInt64 = 1,
                maxDatagramBytes: Int = 2048, bufferedPackets: Int = 2048, maxClients: Int = 64,
                clientIdleTimeout: Duration = .seconds(60), loop: EventLoop? = nil) throws {
        let ownsLoop = loop == nil
        let loop = try loop ?? EventLoop(name: "parley-netsim")
        let settings = NetworkRelayCore.Settings(
            upstream: upstream, downstream: downstream ?? upstream, seed: seed, maxDatagramBytes: maxDatagramBytes,
            bufferedPackets: bufferedPackets, maxClients: max(maxClients, 1),
            clientIdleMicroseconds: max(Int64(clamping: clientIdleTimeout.nanoseconds / 1_000), 1_000))
        let outage = NetworkRelayOutage()
        let core = LoopBound(NetworkRelayCore(loop: loop, target: target, settings: settings, outage: outage), loop: loop)
        do {
            let listener = try UDPSocket.inPlace(host: listenHost, port: listenPort, loop: loop, maxDatagramBytes: maxDatagramBytes) {
                core.value.fromClient($0)
            }
            loop.execute { core.value.attach(listener: listener) }
            localPort = listener.localPort
        } catch {
            if ownsLoop {
                loop.stop()
                loop.waitUntilStopped()
            }
            throw error
        }
        self.target = target
        self.loop = loop
        self.core = core
        self.outage = outage
        self.ownsLoop = ownsLoop
    }

    /// Blacks the network out (`true`) or brings it back (`false`), from any thread: while blocked,
    /// every datagram either way is dropped and counted (`Statistics.droppedByOutage`), and so is
    /// whatever was in flight when the outage began. Takes effect for datagrams that arrive after
    /// the call returns; client mappings stay (a client sending during the outage stays active).
    public func setOutage(_ blocked: Bool) {
        guard outage.set(blocked), blocked else { return }
        loop.execute { [core] in core.value.outageBegan() }
    }

    /// Changes the rate limit of both directions (nil lifts it), from any thread; it applies to
    /// datagrams that arrive after the loop took it.
    public func setRate(bitsPerSecond: Int64?) {
        loop.execute { [core] in core.value.setRate(bitsPerSecond: bitsPerSecond) }
    }

    /// Whether an outage is on.
    public var isOutage: Bool { outage.isBlocked }

    /// The counters so far (after `stop()`, the final ones).
    public func statistics() async -> Statistics {
        if let done = finalStatistics.withLock({ $0 }) { return done }
        return await withCheckedContinuation { continuation in
            loop.execute { [core] in continuation.resume(returning: core.value.statistics) }
        }
    }

    /// Closes every socket, drops what is in flight, ends the relay's own loop, and returns the
    /// final counters. Blocks until done; call it off the loop thread. Calling it again returns the same.
    @discardableResult
    public func stop() -> Statistics {
        if let done = finalStatistics.withLock({ $0 }) { return done }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex(Statistics())
        loop.execute { [core] in
            result.withLock { $0 = core.value.shutdown() }
            done.signal()
        }
        done.wait()
        let statistics = result.withLock { $0 }
        finalStatistics.withLock { $0 = statistics }
        if ownsLoop {
            loop.stop()
            loop.waitUntilStopped()
        }
        return statistics
    }
}
