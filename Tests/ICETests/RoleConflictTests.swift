import ICE
import Testing

@Suite struct RoleConflictTests {
    static let aHost = addr("10.0.0.1", 5000)
    static let bHost = addr("10.0.0.2", 6000)
    static let aCredentials = ICECredentials(ufrag: "aaaa", pwd: "apassword0123456789012345")
    static let bCredentials = ICECredentials(ufrag: "bbbb", pwd: "bpassword0123456789012345")

    /// Two full agents that trickle candidates to each other.
    static func pair(roles: (ICERole, ICERole), tieBreakers: (UInt64, UInt64)) -> (Network, FullPeer, FullPeer) {
        let network = Network()
        var aConfiguration = ICEAgent.Configuration()
        aConfiguration.role = roles.0
        var bConfiguration = ICEAgent.Configuration()
        bConfiguration.role = roles.1
        let a = FullPeer(network, agent: ICEAgent(configuration: aConfiguration, localCredentials: aCredentials,
                                                  remoteCredentials: bCredentials, tieBreaker: tieBreakers.0,
                                                  random: SeededGenerator(seed: 1), hmac: hmacSHA1), hosts: [aHost])
        let b = FullPeer(network, agent: ICEAgent(configuration: bConfiguration, localCredentials: bCredentials,
                                                  remoteCredentials: aCredentials, tieBreaker: tieBreakers.1,
                                                  random: SeededGenerator(seed: 2), hmac: hmacSHA1), hosts: [bHost])
        a.onCandidate = { [unowned b] in b.add($0) }
        b.onCandidate = { [unowned a] in a.add($0) }
        a.onGatheringComplete = { [unowned b, unowned network] in b.perform(b.agent.endOfRemoteCandidates(now: network.now)) }
        b.onGatheringComplete = { [unowned a, unowned network] in a.perform(a.agent.endOfRemoteCandidates(now: network.now)) }
        return (network, a, b)
    }

    @Test(arguments: [(ICERole.controlling, ICERole.controlling), (.controlled, .controlled)])
    func conflictResolvesByTieBreaker(_ roles: (ICERole, ICERole)) throws {
        let (network, a, b) = Self.pair(roles: roles, tieBreakers: (100, 200))
        a.gather()
        b.gather()
        network.run(for: .seconds(3))
        // The larger tie-breaker (b) ends controlling (RFC 8445 §7.3.1.1).
        #expect(a.agent.role == .controlled)
        #expect(b.agent.role == .controlling)
        #expect(a.agent.stats.roleConflicts + b.agent.stats.roleConflicts >= 1)
        #expect(a.agent.state == .connected)
        #expect(b.agent.state == .connected)
        let aSelection = try #require(a.selections.last)
        let bSelection = try #require(b.selections.last)
        #expect(aSelection.local.address == Self.aHost && aSelection.remote.address == Self.bHost)
        #expect(bSelection.local.address == Self.bHost && bSelection.remote.address == Self.aHost)
        #expect(b.agent.selectedPair?.nominated == true)
    }

    @Test func fullControllingAndFullControlledConnectWithoutConflict() {
        let (network, a, b) = Self.pair(roles: (.controlling, .controlled), tieBreakers: (1, 2))
        a.gather()
        b.gather()
        network.run(for: .seconds(3))
        #expect(a.agent.role == .controlling && b.agent.role == .controlled)
        #expect(a.agent.stats.roleConflicts == 0 && b.agent.stats.roleConflicts == 0)
        #expect(a.agent.state == .connected && b.agent.state == .connected)
        #expect(!a.log.contains { if case .roleChanged = $0 { true } else { false } })
    }
}
