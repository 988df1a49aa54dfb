import Dispatch
import NetworkConditioner
import ParleyCore
import Synchronization

/// A UDP relay through a simulated network, for end-to-end tests of real processes (`parley
/// netsim`) and for in-process tests: datagrams sent to `localPort` go to `target` through the
/// upstream `NetworkConditioner`, and whatever the target sends back goes to the last client address
/// through the downstream one, so both directions of an RTP/RTCP/ICE flow cross it.
///
/// One event loop owns both sockets, both conditioners and a fixed pool of packet buffers; delivery
/// times are kept with the loop's timers (millisecond resolution, never early). A datagram that finds
/// the pool full is dropped and counted.
public final class NetworkRelay: Sendable {
    /// What the relay did in each direction.
    public struct Statistics: Sendable, Hashable {
        /// Client → target.
        public var upstream = NetworkConditionerStatistics()
        /// Target → client.
        public var downstream = NetworkConditionerStatistics()
        /// Datagrams dropped because every packet buffer was in use, or they were too long.
        public var droppedNoBuffer = 0
        /// Datagrams from the target dropped because no client had spoken yet.
        public var droppedNoClient = 0

        public init() {}
    }

    /// The port clients send to.
    public let localPort: Int
    /// Where datagrams are forwarded.
    public let target: SocketAddress
    /// The loop that runs the relay.
    public let loop: EventLoop

    private let core: LoopBound<NetworkRelayCore>
    private let ownsLoop: Bool
    private let finalStatistics = Mutex<Statistics?>(nil)

    /// Listens on `listenHost:listenPort` (0: ephemeral) and forwards to `target`. `downstream`
    /// defaults to the upstream conditions; each direction draws from its own generator (`seed` and
    /// `seed + 1`). Runs on `loop`, or on a loop of its own that `stop()` ends.
    public init(listenHost: String = "127.0.0.1", listenPort: Int = 0, forwardTo target: SocketAddress,
                upstream: NetworkConditions = NetworkConditions(), downstream: NetworkConditions? = nil, seed: UInt64 = 1,
                maxDatagramBytes: Int = 2048, bufferedPackets: Int = 2048, loop: EventLoop? = nil) throws {
        let ownsLoop = loop == nil
        let loop = try loop ?? EventLoop(name: "parley-netsim")
        let core = LoopBound(NetworkRelayCore(loop: loop, target: target, pool: NetworkRelayPacketPool(count: bufferedPackets, slotBytes: maxDatagramBytes),
                                    upstream: NetworkConditioner(conditions: upstream, seed: seed, capacity: bufferedPackets),
                                    downstream: NetworkConditioner(conditions: downstream ?? upstream, seed: seed &+ 1,
                                                                   capacity: bufferedPackets)), loop: loop)
        do {
            let listener = try UDPSocket.inPlace(host: listenHost, port: listenPort, loop: loop, maxDatagramBytes: maxDatagramBytes) {
                core.value.fromClient($0)
            }
            let outbound: UDPSocket
            do {
                outbound = try UDPSocket.inPlace(host: target.isIPv6 ? "::" : "0.0.0.0", port: 0, loop: loop,
                                                 maxDatagramBytes: maxDatagramBytes) { core.value.fromTarget($0) }
            } catch {
                listener.close()
                throw error
            }
            loop.execute { core.value.attach(listener: listener, outbound: outbound) }
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
        self.ownsLoop = ownsLoop
    }

    /// The counters so far (after `stop()`, the final ones).
    public func statistics() async -> Statistics {
        if let done = finalStatistics.withLock({ $0 }) { return done }
        return await withCheckedContinuation { continuation in
            loop.execute { [core] in continuation.resume(returning: core.value.statistics) }
        }
    }

    /// Closes both sockets, drops what is in flight, ends the relay's own loop, and returns the final
    /// counters. Blocks until done; call it off the loop thread. Calling it again returns the same.
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
