import ICE
import STUN
import Testing

/// Mutated real datagrams never crash an agent, and every one is accounted for.
@Suite struct MalformedInputTests {
    static func mutate(_ base: [UInt8], _ generator: inout SeededGenerator) -> [UInt8] {
        var bytes = base
        switch generator.next() % 5 {
        case 0:
            for _ in 0..<(1 + generator.next() % 3) where !bytes.isEmpty {
                bytes[Int(generator.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: 1 + generator.next() % 255)
            }
        case 1:
            bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
        case 2:
            bytes += (0..<(1 + generator.next() % 12)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        case 3:
            // Rewrite a 16-bit field (a length, a type) at an even offset.
            let offset = Int(generator.next() % UInt64(bytes.count / 2)) * 2
            bytes[offset] = UInt8(truncatingIfNeeded: generator.next())
            bytes[offset + 1] = UInt8(truncatingIfNeeded: generator.next())
        default:
            bytes = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
        return bytes
    }

    @Test func mutatedChecksNeverCrashTheLiteAgent() {
        var generator = SeededGenerator(seed: 2024)
        var lite = ICELiteAgent(localCredentials: serverCredentials, remoteCredentials: clientCredentials, hmac: hmacSHA1)
        let peer = addr("198.51.100.7", 50000)
        let bases = [makeCheck(useCandidate: true), makeCheck(controlling: false), makeCheck(fingerprint: false)]
        let rounds = 6000
        for i in 0..<rounds {
            let bytes = Self.mutate(bases[i % bases.count], &generator)
            let actions = lite.receive(bytes, from: peer, now: ICEInstant(nanoseconds: UInt64(i) * 1_000_000))
            for case .send(let reply, _) in actions { #expect((try? STUNMessage(parsing: reply)) != nil) }
            _ = lite.tick(now: ICEInstant(nanoseconds: UInt64(i) * 1_000_000))
        }
        let s = lite.stats
        #expect(s.requests + s.malformed + s.unauthenticated + s.unknownAttributes + s.indications + s.ignored == rounds)
        #expect(s.malformed > rounds / 2)
    }

    @Test func mutatedResponsesAndRequestsNeverCrashTheFullAgent() {
        var generator = SeededGenerator(seed: 77)
        let session = LiteSession()
        // Capture real traffic in both directions first.
        var captured: [Network.Packet] = []
        let network = session.network
        network.dropIf = { captured.append($0); return false }
        session.connect()
        network.dropIf = { _ in false }
        let toClient = captured.filter { $0.to == LiteSession.clientHost }
        #expect(!toClient.isEmpty)
        let clientCheck = makeCheck(username: "cliU:srvU", password: clientCredentials.pwd, controlling: false)
        var agent = session.client.agent
        for i in 0..<4000 {
            let base = i % 4 == 0 ? clientCheck : toClient[i % toClient.count].bytes
            let bytes = Self.mutate(base, &generator)
            let now = network.now.advanced(by: .milliseconds(i))
            _ = agent.receive(bytes, from: LiteSession.serverAddress, at: LiteSession.clientHost, now: now)
            _ = agent.tick(now: now)
        }
        #expect(agent.stats.malformed > 1000)
        #expect(agent.state != .closed)
    }

    @Test func mutatedTURNTrafficNeverCrashes() {
        var generator = SeededGenerator(seed: 5)
        let (session, _) = TURNTests.session(policy: .relay)
        var captured: [Network.Packet] = []
        session.network.dropIf = { captured.append($0); return false }
        session.connect(for: .seconds(3))
        let fromTURN = captured.filter { $0.from == TURNTests.turnAddress }
        #expect(fromTURN.count > 3)
        var agent = session.client.agent
        for i in 0..<4000 {
            let bytes = Self.mutate(fromTURN[i % fromTURN.count].bytes, &generator)
            let now = session.network.now.advanced(by: .milliseconds(i))
            _ = agent.receive(bytes, from: TURNTests.turnAddress, at: LiteSession.clientHost, now: now)
            _ = agent.unwrapIncoming(bytes, from: TURNTests.turnAddress, at: LiteSession.clientHost)
            _ = agent.tick(now: now)
        }
        #expect(agent.state != .closed)
    }
}
