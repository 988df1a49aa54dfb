import NetworkConditioner

extension NetworkRelay {
    /// What the relay did, in total and per client.
    public struct Statistics: Sendable, Hashable {
        /// Client → target, every client's (forgotten ones included) added up.
        public var upstream = NetworkConditionerStatistics()
        /// Target → client, every client's added up.
        public var downstream = NetworkConditionerStatistics()
        /// Datagrams dropped because every packet buffer was in use, or they were too long.
        public var droppedNoBuffer = 0
        /// Datagrams from new clients dropped because `maxClients` were already relayed (or the
        /// client's outbound socket could not be opened).
        public var droppedClientLimit = 0
        /// Datagrams dropped by `setOutage(true)`, both ways: those that arrived during the outage
        /// and those in flight when it began (the latter are in `submitted` but never `delivered`).
        public var droppedByOutage = 0
        /// Clients relayed so far, and how many of them were forgotten after being idle.
        public var clientsSeen = 0
        public var clientsForgotten = 0
        /// The clients relayed now, in the order they first spoke.
        public var clients: [Client] = []

        public init() {}
    }

    /// One client's share: its own outbound socket and its own pair of conditioners.
    public struct Client: Sendable, Hashable {
        /// The client's source address.
        public var address: SocketAddress
        /// 0 for the first client the relay saw, 1 for the next…: picks its conditioners' seeds.
        public var number: Int
        /// The local port of the socket its datagrams leave from toward the target.
        public var outboundPort: Int
        public var upstream = NetworkConditionerStatistics()
        public var downstream = NetworkConditionerStatistics()
        /// Its datagrams (both ways) dropped by an outage.
        public var droppedByOutage = 0

        public init(address: SocketAddress, number: Int, outboundPort: Int) {
            self.address = address
            self.number = number
            self.outboundPort = outboundPort
        }
    }
}

extension NetworkConditionerStatistics {
    /// Adds `other`'s counters to these (the maximum delay is the larger one).
    mutating func add(_ other: NetworkConditionerStatistics) {
        submitted += other.submitted
        droppedByLoss += other.droppedByLoss
        droppedByQueue += other.droppedByQueue
        duplicated += other.duplicated
        reordered += other.reordered
        delivered += other.delivered
        deliveredOutOfOrder += other.deliveredOutOfOrder
        totalDelayMicroseconds += other.totalDelayMicroseconds
        maxDelayMicroseconds = max(maxDelayMicroseconds, other.maxDelayMicroseconds)
    }
}
