import Foundation
import ICE
import ParleyCrypto
import STUN
import Testing

@Suite struct TURNTests {
    static let turnAddress = addr("198.51.100.2", 3478)

    /// A lite session whose client reaches the server through a scripted TURN server.
    static func session(policy: ICETransportPolicy) -> (LiteSession, ScriptedTURNServer) {
        var configuration = ICEAgent.Configuration()
        configuration.policy = policy
        configuration.turnServers = [TURNServer(address: turnAddress, username: "alice", password: "wonderland")]
        let session = LiteSession(configuration: configuration)
        let turn = ScriptedTURNServer(session.network, address: turnAddress, relayIP: "198.51.100.2",
                                      username: "alice", password: "wonderland")
        return (session, turn)
    }

    @Test func allocateWith401ThenSuccessYieldsARelayCandidateAndRelayOnlyPairs() throws {
        let (session, turn) = Self.session(policy: .relay)
        session.connect(for: .seconds(3))
        #expect(Array(turn.log.prefix(2)) == ["401", "allocate"])
        #expect(!turn.log.contains("badintegrity"))
        let relayed = addr("198.51.100.2", 49152)
        #expect(session.client.gathered.map(\.type) == [.relay])
        let relay = try #require(session.client.gathered.first)
        #expect(relay.address == relayed)
        #expect(relay.relatedAddress == LiteSession.clientHost)
        #expect(relay.priority == ICECandidate.priority(type: .relay, localPreference: 65535))
        #expect(!session.client.agent.pairs.isEmpty)
        #expect(session.client.agent.pairs.allSatisfy { $0.local.type == .relay })
        // Checks went through the relay: CreatePermission, Send indications, Data indications.
        #expect(turn.log.contains("permission") && turn.log.contains("send") && turn.log.contains("data"))
        #expect(session.client.agent.state == .connected)
        #expect(session.server.agent.state == .connected)
        #expect(session.server.selections == [relayed])
        #expect(session.client.selections.first?.local.type == .relay)
        #expect(turn.log.contains("channel"))
    }

    @Test func mediaThroughTheRelayUsesChannelData() throws {
        let (session, turn) = Self.session(policy: .relay)
        session.connect(for: .seconds(3))
        var agent = session.client.agent
        let outgoing = agent.wrapOutgoing([0x80, 0x60, 1, 2])
        let wrapped = try #require(outgoing)
        #expect(wrapped.bytes.first.map { (0x40...0x4F).contains($0) } == true)
        #expect(wrapped.from == LiteSession.clientHost && wrapped.to == Self.turnAddress)
        session.network.send(wrapped.bytes, from: wrapped.from, to: wrapped.to)
        session.network.run(for: .milliseconds(100))
        #expect(session.server.received == [[0x80, 0x60, 1, 2]])
        #expect(turn.log.contains("channeldata"))

        // And back: the server answers the relayed address; the client gets the payload.
        session.network.send([0x80, 0x60, 9, 9], from: LiteSession.serverAddress, to: addr("198.51.100.2", 49152))
        session.network.run(for: .milliseconds(100))
        #expect(session.client.delivered == [[0x80, 0x60, 9, 9]])
        let channelData = try ChannelData(channelNumber: 0x4000, data: [0x80, 1]).serialized()
        let unwrapped = session.client.agent.unwrapIncoming(channelData, from: Self.turnAddress, at: LiteSession.clientHost)
        #expect(unwrapped?.payload == [0x80, 1])
        #expect(unwrapped?.peer == LiteSession.serverAddress)
    }

    @Test func allocationPermissionsAndChannelsAreRefreshed() {
        let (session, turn) = Self.session(policy: .relay)
        session.connect(for: .seconds(3))
        session.network.run(for: .seconds(15 * 60))
        #expect(turn.log.filter { $0 == "refresh" }.count >= 1)
        #expect(turn.log.filter { $0 == "permission" }.count >= 3)
        #expect(turn.log.filter { $0 == "channel" }.count >= 2)
        #expect(session.client.agent.state == .connected)
        #expect(session.server.agent.state == .connected)
    }

    @Test func policyAllPrefersTheHostPairButStillGathersTheRelay() {
        let (session, _) = Self.session(policy: .all)
        session.connect(for: .seconds(3))
        #expect(Set(session.client.gathered.map(\.type)) == [.host, .relay])
        #expect(session.client.selections.first?.local.type == .host)
    }

    @Test func restCredentialsMatchCoturn() {
        let (username, password) = TURNRESTCredentials.make(user: "alice", secret: "s3cr3t", expiresAt: 1_700_000_000,
                                                            hmac: hmacSHA1)
        #expect(username == "1700000000:alice")
        #expect(password == Data(HMAC.sha1(key: Array("s3cr3t".utf8), message: Array(username.utf8))).base64EncodedString())
        for length in 0..<8 {
            let bytes = (0..<length).map { UInt8($0 * 37 & 0xFF) }
            let server = TURNRESTCredentials.server(TURNTests.turnAddress, user: "", secret: String(length),
                                                    expiresAt: 5, hmac: { key, _ in Array(key) + bytes })
            #expect(server.username == "5")
            #expect(server.password == Data(Array(String(length).utf8) + bytes).base64EncodedString())
        }
    }
}
