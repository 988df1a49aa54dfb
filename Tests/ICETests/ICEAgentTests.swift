import ICE
import ParleyCore
import STUN
import Testing

/// A full agent (the client, controlling) against the lite server on an in-memory network.
final class LiteSession {
    static let clientHost = addr("192.168.1.20", 40000)
    static let serverAddress = addr("203.0.113.10", 3478)

    let network = Network()
    let client: FullPeer
    let server: LitePeer

    init(configuration: ICEAgent.Configuration = ICEAgent.Configuration(), hosts: [ICETransportAddress] = [clientHost],
         seed: UInt64 = 1) {
        let agent = ICEAgent(configuration: configuration, localCredentials: clientCredentials,
                             remoteCredentials: serverCredentials, random: SeededGenerator(seed: seed), hmac: hmacSHA1, md5: md5)
        client = FullPeer(network, agent: agent, hosts: hosts)
        server = LitePeer(network, agent: ICELiteAgent(localCredentials: serverCredentials,
                                                       remoteCredentials: clientCredentials, hmac: hmacSHA1),
                          address: Self.serverAddress)
    }

    /// Gathers, hands the client the server's candidate, and runs.
    func connect(for duration: Duration = .seconds(2)) {
        client.gather()
        client.add(server.candidate)
        client.perform(client.agent.endOfRemoteCandidates(now: network.now))
        network.run(for: duration)
    }

    /// Connects, then drops everything from now on; returns when the cut began.
    func connectThenCut() -> ICEInstant {
        connect()
        network.dropIf = { _ in true }
        return network.now
    }
}

@Suite struct ICEAgentTests {
    @Test func liteAnswersACheckBuiltByTheFullAgent() throws {
        var agent = ICEAgent(localCredentials: clientCredentials, remoteCredentials: serverCredentials,
                             random: SeededGenerator(seed: 7), hmac: hmacSHA1)
        var lite = ICELiteAgent(localCredentials: serverCredentials, remoteCredentials: clientCredentials, hmac: hmacSHA1)
        let host = LiteSession.clientHost
        _ = agent.startGathering(hostAddresses: [host], now: .zero)
        let actions = agent.addRemoteCandidate(ICECandidate(type: .host, address: LiteSession.serverAddress), now: .zero)
        guard case .send(let check, let from, let to)? = actions.first(where: { if case .send = $0 { true } else { false } })
        else { Issue.record("no check sent"); return }
        #expect(from == host && to == LiteSession.serverAddress)
        let message = try STUNMessage(parsing: check)
        #expect(message.username == "srvU:cliU")
        #expect(message.iceControlling == agent.tieBreaker)
        #expect(message.priority == ICECandidate.priority(type: .prflx, localPreference: 65535))

        let replies = lite.receive(check, from: host, now: .zero)
        guard case .send(let response, let back)? = replies.first else { Issue.record("no answer"); return }
        #expect(back == host)
        _ = agent.receive(response, from: LiteSession.serverAddress, at: host, now: .zero)
        #expect(agent.pairs.first?.state == .succeeded)
        #expect(lite.stats.requests == 1)
    }

    @Test func fullControllingAndLiteControlledConnect() throws {
        let session = LiteSession()
        session.connect()
        #expect(session.client.agent.state == .connected)
        #expect(session.server.agent.state == .connected)
        #expect(session.client.states == [.checking, .connected])
        #expect(session.server.states == [.checking, .connected])
        let selection = try #require(session.client.selections.first)
        #expect(selection.local.address == LiteSession.clientHost)
        #expect(selection.remote.address == LiteSession.serverAddress)
        #expect(session.server.selections == [LiteSession.clientHost])
        #expect(session.client.gathered.map(\.type) == [.host])
        #expect(session.client.log.contains(.gatheringComplete))
        // Media on the selected pair goes straight to the server.
        var agent = session.client.agent
        let outgoing = agent.wrapOutgoing([0x80, 1, 2, 3])
        let wrapped = try #require(outgoing)
        #expect(wrapped.bytes == [0x80, 1, 2, 3] && wrapped.to == LiteSession.serverAddress)
    }

    @Test func lossyNetworkStillConnectsThroughRetransmission() {
        let session = LiteSession()
        var lost = 0
        session.network.dropIf = { packet in
            guard packet.to == LiteSession.serverAddress, lost < 4 else { return false }
            lost += 1
            return true
        }
        session.connect(for: .seconds(10))
        #expect(lost == 4)
        #expect(session.client.agent.state == .connected)
        #expect(session.server.selections == [LiteSession.clientHost])
        #expect(session.client.agent.stats.retransmissions >= 4)
    }

    @Test func consentKeepsALiveSessionConnected() {
        let session = LiteSession()
        session.connect()
        session.network.run(for: .seconds(120))
        #expect(session.client.agent.state == .connected)
        #expect(session.server.agent.state == .connected)
        #expect(session.server.agent.stats.requests > 20)  // consent checks every 4–6 s
    }

    @Test func consentLossDisconnectsThenFailsAt30Seconds() throws {
        let session = LiteSession()
        let cut = session.connectThenCut()
        // The last check and response came at most one consent interval (≤ 6 s) before the cut.
        session.network.run(until: cut.advanced(by: .milliseconds(5_100)))
        #expect(session.server.agent.state == .disconnected)
        session.network.run(until: cut.advanced(by: .milliseconds(8_100)))
        #expect(session.client.agent.state == .disconnected)
        session.network.run(until: cut.advanced(by: .seconds(23)))
        #expect(session.client.agent.state == .disconnected)
        #expect(session.server.agent.state == .disconnected)
        session.network.run(until: cut.advanced(by: .milliseconds(30_100)))
        #expect(session.client.agent.state == .failed)
        #expect(session.server.agent.state == .failed)
        #expect(session.client.states.suffix(2) == [.disconnected, .failed])
        #expect(session.server.states.suffix(2) == [.disconnected, .failed])
        #expect(session.client.agent.failure?.code == .mediaConnection)
    }

    /// Traffic back on the selected pair after 25 s of silence reconnects at once and sends a
    /// consent check then, not at the next interval: consent (30 s, RFC 7675) is renewed within a
    /// round trip however close it was to expiring.
    @Test func trafficAfterAnOutageRenewsConsentAtOnce() {
        let session = LiteSession()
        let cut = session.connectThenCut()
        session.network.run(until: cut.advanced(by: .seconds(25)))
        #expect(session.client.agent.state == .disconnected)
        session.network.dropIf = { _ in false }
        let requests = session.server.agent.stats.requests
        session.client.perform(session.client.agent.noteTraffic(from: LiteSession.serverAddress, now: session.network.now))
        #expect(session.client.agent.state == .connected)
        session.network.run(for: .milliseconds(20))  // one round trip (5 ms each way)
        #expect(session.server.agent.stats.requests > requests)
        session.network.run(until: cut.advanced(by: .seconds(40)))
        #expect(session.client.agent.state == .connected)
        #expect(session.server.agent.state == .connected)
    }

    @Test func iceRestartChangesCredentialsAndReconnects() {
        let session = LiteSession()
        session.connect()
        let newServer = ICECredentials(ufrag: "srv2", pwd: "serverpassword2222222222")
        let newClient = ICECredentials(ufrag: "cli2", pwd: "clientpassword2222222222")
        session.server.perform(session.server.agent.restart(localCredentials: newServer, remoteCredentials: newClient))
        session.client.perform(session.client.agent.restart(localCredentials: newClient, remoteCredentials: newServer,
                                                            now: session.network.now))
        #expect(session.client.agent.state == .connected)  // media stays on the old pair meanwhile
        session.network.run(for: .seconds(1))
        session.client.add(session.server.candidate)
        session.network.run(for: .seconds(2))
        #expect(session.client.selections.count == 2)
        #expect(session.server.selections == [LiteSession.clientHost, LiteSession.clientHost])
        #expect(session.server.agent.localCredentials == newServer)
        #expect(session.client.agent.localCredentials == newClient)
        session.network.run(for: .seconds(40))
        #expect(session.client.agent.state == .connected)
        #expect(session.server.agent.state == .connected)
    }

    @Test func noRemoteCandidatesWorkingFails() {
        let session = LiteSession()
        session.network.dropIf = { _ in true }
        session.connect(for: .seconds(60))
        #expect(session.client.agent.state == .failed)
        #expect(session.client.agent.pairs.allSatisfy { $0.state == .failed })
    }

    @Test func loopbackAndIPv6HostsPairOnlyWithinTheirFamily() {
        let hosts = [addr("127.0.0.1", 1000), addr("::1", 1001), addr("2001:db8::5", 1002), LiteSession.clientHost]
        let session = LiteSession(hosts: hosts)
        session.connect()
        #expect(session.client.gathered.count == 4)
        #expect(Set(session.client.agent.pairs.map(\.local.address)) == [addr("127.0.0.1", 1000), LiteSession.clientHost])
        #expect(session.client.agent.state == .connected)
        #expect(session.client.selections.first?.local.address == LiteSession.clientHost)
        // Once a pair is selected, ordinary checks stop (RFC 8445 §8.1.2); only consent goes on.
        let checks = session.client.agent.stats.checksSent
        session.network.run(for: .seconds(60))
        #expect(session.client.agent.stats.checksSent == checks)
        #expect(session.client.agent.state == .connected)
    }

    @Test func serverReflexiveCandidateFromAStunServer() throws {
        var configuration = ICEAgent.Configuration()
        let stun = addr("198.51.100.1", 3478)
        configuration.stunServers = [stun]
        let session = LiteSession(configuration: configuration)
        let server = STUNServerPeer(session.network, address: stun, natIP: "198.51.100.77")
        session.connect()
        let srflx = try #require(session.client.gathered.first { $0.type == .srflx })
        #expect(srflx.address == addr("198.51.100.77", 40000))
        #expect(srflx.relatedAddress == LiteSession.clientHost)
        #expect(srflx.priority == ICECandidate.priority(type: .srflx, localPreference: 65535))
        #expect(server.requests == 1)
        #expect(session.client.log.contains(.gatheringComplete))
        // Pruned: server-reflexive candidates are signalled, not paired (RFC 8445 §6.1.2.4).
        #expect(session.client.agent.pairs.allSatisfy { $0.local.type == .host })
    }

    @Test func fullAgentRejectsBadCredentialsAndCountsThem() throws {
        var agent = ICEAgent(localCredentials: clientCredentials, remoteCredentials: serverCredentials,
                             random: SeededGenerator(seed: 3), hmac: hmacSHA1)
        let host = LiteSession.clientHost
        let peer = LiteSession.serverAddress
        _ = agent.startGathering(hostAddresses: [host], now: .zero)
        let wrongPassword = makeCheck(username: "cliU:srvU", password: "nottheclientpassword0000", controlling: false)
        let wrongUser = makeCheck(username: "nope:srvU", password: clientCredentials.pwd, controlling: false)
        for check in [wrongPassword, wrongUser] {
            let actions = agent.receive(check, from: peer, at: host, now: .zero)
            guard case .send(let reply, _, let to)? = actions.first else { Issue.record("no reply"); continue }
            #expect(to == peer)
            #expect(try STUNMessage(parsing: reply).errorCode?.code == 401)
        }
        #expect(agent.receive(makeCheck(fingerprint: false), from: peer, at: host, now: .zero).isEmpty)
        #expect(agent.stats.rejected == 2 && agent.stats.malformed == 1 && agent.stats.checksReceived == 0)
        #expect(agent.remoteCandidates.isEmpty && agent.pairs.isEmpty)
        // A good one is answered and teaches a peer-reflexive remote candidate (RFC 8445 §7.3.1.3).
        let good = makeCheck(username: "cliU:srvU", password: clientCredentials.pwd, controlling: false)
        let actions = agent.receive(good, from: peer, at: host, now: .zero)
        guard case .send(let reply, _, _)? = actions.first else { Issue.record("no reply"); return }
        #expect(try STUNMessage(parsing: reply).type == .bindingSuccess)
        #expect(agent.remoteCandidates.map(\.type) == [.prflx])
        #expect(agent.stats.checksReceived == 1)
    }
}
