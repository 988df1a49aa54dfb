import NetworkConditioner

/// One client of a `NetworkRelay`, as a NAT keeps it: the client's address, the socket its
/// datagrams leave from toward the target (so the target sees one source per client and answers
/// each on its own), and one conditioner per direction, seeded from the relay's seed and the
/// client's number. Loop-confined (`NetworkRelayCore` owns it).
final class NetworkRelayClient {
    /// One direction: a conditioner (carrying indices into the packet pool) and the loop timer set
    /// for its next delivery.
    struct Path {
        var conditioner: NetworkConditioner<Int>
        var timer: TimerQueue.ID?
        var deadline: Int64?
    }

    enum Direction: Int {
        case upstream = 0, downstream = 1
    }

    let address: SocketAddress
    let number: Int
    /// Set right after the client is made (its receive handler needs the client); nil again once
    /// closed, which breaks the socket → handler → client cycle.
    var socket: UDPSocket? {
        didSet { if let socket { outboundPort = socket.localPort } }
    }
    private(set) var outboundPort = 0
    /// Indexed by `Direction.rawValue`.
    var paths: [Path]
    /// When a datagram last came from the client or for it (µs, `monotonicNanos` / 1000).
    var lastActivity: Int64
    var droppedByOutage = 0

    init(address: SocketAddress, number: Int, upstream: NetworkConditioner<Int>, downstream: NetworkConditioner<Int>,
         now: Int64) {
        self.address = address
        self.number = number
        paths = [Path(conditioner: upstream), Path(conditioner: downstream)]
        lastActivity = now
    }

    /// Closes the outbound socket.
    func closeSocket() {
        socket?.close()
        socket = nil
    }

    var statistics: NetworkRelay.Client {
        var client = NetworkRelay.Client(address: address, number: number, outboundPort: outboundPort)
        client.upstream = paths[Direction.upstream.rawValue].conditioner.statistics
        client.downstream = paths[Direction.downstream.rawValue].conditioner.statistics
        client.droppedByOutage = droppedByOutage
        return client
    }

    /// The seeds of client `number`'s two conditioners: client 0 draws from `seed` and `seed + 1`
    /// (as a one-client relay always did); later ones from a SplitMix64 mix of the seed and the
    /// number, so no two clients of a relay share a stream.
    static func seeds(relaySeed seed: UInt64, number: Int) -> (upstream: UInt64, downstream: UInt64) {
        guard number > 0 else { return (seed, seed &+ 1) }
        var z = seed &+ UInt64(number) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return (z, z &+ 1)
    }
}
