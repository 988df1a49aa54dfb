import ICE
import STUN
import Testing

/// Something on the in-memory network that owns some addresses.
protocol Endpoint: AnyObject {
    func owns(_ address: ICETransportAddress) -> Bool
    func receive(_ bytes: [UInt8], from source: ICETransportAddress, at local: ICETransportAddress)
    func tick()
    var nextDeadline: ICEInstant? { get }
}

/// An in-memory datagram network driven by a virtual clock, with scripted loss (like aiortc's
/// `tests/utils.py`). Every datagram takes `latency`; `dropIf` may eat it.
final class Network {
    struct Packet {
        var bytes: [UInt8]
        var from: ICETransportAddress
        var to: ICETransportAddress
        var at: ICEInstant
    }

    var now = ICEInstant.zero
    var latency: Duration = .milliseconds(5)
    var inFlight: [Packet] = []
    var endpoints: [any Endpoint] = []
    var dropIf: (Packet) -> Bool = { _ in false }
    var sent = 0
    var dropped = 0

    func send(_ bytes: [UInt8], from: ICETransportAddress, to: ICETransportAddress) {
        let packet = Packet(bytes: bytes, from: from, to: to, at: now.advanced(by: latency))
        sent += 1
        // Loopback reaches only loopback.
        if dropIf(packet) || from.isLoopback != to.isLoopback { dropped += 1 } else { inFlight.append(packet) }
    }

    func run(for duration: Duration) { run(until: now.advanced(by: duration)) }

    /// Delivers packets and fires timers in time order until `limit`.
    func run(until limit: ICEInstant) {
        for _ in 0..<1_000_000 {
            let times = inFlight.map(\.at) + endpoints.compactMap(\.nextDeadline)
            guard let next = times.min(), next <= limit else {
                now = max(now, limit)
                return
            }
            now = max(now, next)
            let due = inFlight.filter { $0.at <= now }
            inFlight.removeAll { $0.at <= now }
            for packet in due {
                endpoints.first { $0.owns(packet.to) }?.receive(packet.bytes, from: packet.from, at: packet.to)
            }
            for endpoint in endpoints where (endpoint.nextDeadline.map { $0 <= now } ?? false) { endpoint.tick() }
        }
        Issue.record("network did not settle")
    }
}

/// A full `ICEAgent` on the network; it records what the agent reported.
final class FullPeer: Endpoint {
    unowned let network: Network
    var agent: ICEAgent
    let hosts: [ICETransportAddress]
    var log: [ICEAgentAction] = []
    /// Where trickled candidates go.
    var onCandidate: (ICECandidate) -> Void = { _ in }
    var onGatheringComplete: () -> Void = {}

    init(_ network: Network, agent: ICEAgent, hosts: [ICETransportAddress]) {
        self.network = network
        self.agent = agent
        self.hosts = hosts
        network.endpoints.append(self)
    }

    func owns(_ address: ICETransportAddress) -> Bool { hosts.contains(address) }
    var nextDeadline: ICEInstant? { agent.nextDeadline }
    func receive(_ bytes: [UInt8], from source: ICETransportAddress, at local: ICETransportAddress) {
        perform(agent.receive(bytes, from: source, at: local, now: network.now))
    }
    func tick() { perform(agent.tick(now: network.now)) }
    func gather() { perform(agent.startGathering(hostAddresses: hosts, now: network.now)) }
    func add(_ candidate: ICECandidate) { perform(agent.addRemoteCandidate(candidate, now: network.now)) }

    func perform(_ actions: [ICEAgentAction]) {
        log += actions
        for action in actions {
            switch action {
            case .send(let bytes, let from, let to): network.send(bytes, from: from, to: to)
            case .candidateGathered(let candidate): onCandidate(candidate)
            case .gatheringComplete: onGatheringComplete()
            default: break
            }
        }
    }

    var states: [ICEConnectionState] { log.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } } }
    var gathered: [ICECandidate] { log.compactMap { if case .candidateGathered(let c) = $0 { c } else { nil } } }
    var selections: [(local: ICECandidate, remote: ICECandidate)] {
        log.compactMap { if case .selectedPair(let l, let r) = $0 { (l, r) } else { nil } }
    }
    var delivered: [[UInt8]] { log.compactMap { if case .deliver(let b, _) = $0 { b } else { nil } } }
}

/// An `ICELiteAgent` (the server) on the network at one address.
final class LitePeer: Endpoint {
    unowned let network: Network
    var agent: ICELiteAgent
    let address: ICETransportAddress
    var log: [ICEAction] = []
    var received: [[UInt8]] = []

    init(_ network: Network, agent: ICELiteAgent, address: ICETransportAddress) {
        self.network = network
        self.agent = agent
        self.address = address
        network.endpoints.append(self)
    }

    /// The host candidate the server signals.
    var candidate: ICECandidate { ICECandidate(type: .host, address: address) }

    func owns(_ address: ICETransportAddress) -> Bool { address == self.address }
    var nextDeadline: ICEInstant? { agent.nextDeadline }
    func receive(_ bytes: [UInt8], from source: ICETransportAddress, at local: ICETransportAddress) {
        guard bytes.withUnsafeBytes({ PacketKind.classify($0) }) == .stun else {
            received.append(bytes)
            perform(agent.noteTraffic(from: source, now: network.now))
            return
        }
        perform(agent.receive(bytes, from: source, now: network.now))
    }
    func tick() { perform(agent.tick(now: network.now)) }

    func perform(_ actions: [ICEAction]) {
        log += actions
        for case .send(let bytes, let to) in actions { network.send(bytes, from: address, to: to) }
    }

    var states: [ICEConnectionState] { log.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } } }
    var selections: [ICETransportAddress] { log.compactMap { if case .selected(let a) = $0 { a } else { nil } } }
}

/// A STUN server that answers Binding requests with XOR-MAPPED-ADDRESS as seen through a NAT
/// that maps every source to `natIP` with the same port.
final class STUNServerPeer: Endpoint {
    unowned let network: Network
    let address: ICETransportAddress
    let natIP: String
    var requests = 0

    init(_ network: Network, address: ICETransportAddress, natIP: String) {
        self.network = network
        self.address = address
        self.natIP = natIP
        network.endpoints.append(self)
    }

    func owns(_ address: ICETransportAddress) -> Bool { address == self.address }
    var nextDeadline: ICEInstant? { nil }
    func tick() {}
    func receive(_ bytes: [UInt8], from source: ICETransportAddress, at local: ICETransportAddress) {
        guard let request = try? STUNMessage(parsing: bytes), request.type == .bindingRequest else { return }
        requests += 1
        let mapped = addr(natIP, source.port)
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID,
                                   attributes: [.xorMappedAddress(mapped.stunAddress)])
        network.send(try! response.serialized(fingerprint: true), from: address, to: source)
    }
}
