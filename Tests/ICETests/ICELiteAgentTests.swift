import ICE
import ParleyCore
import STUN
import Testing

@Suite struct ICELiteAgentTests {
    let peer = addr("198.51.100.7", 50000)

    func makeAgent() -> ICELiteAgent {
        ICELiteAgent(localCredentials: serverCredentials, remoteCredentials: clientCredentials, hmac: hmacSHA1)
    }

    @Test func answersAValidCheckWithSignedXorMappedAddress() throws {
        var agent = makeAgent()
        let actions = agent.receive(makeCheck(), from: peer, now: .zero)
        #expect(states(actions) == [.checking])
        let reply = try #require(sentBytes(actions).first)
        let response = try STUNMessage(parsing: reply)
        #expect(response.type == .bindingSuccess)
        #expect(response.transactionID == STUNTransactionID(high: 1, low: 2))
        #expect(response.xorMappedAddress == peer.stunAddress)
        let integrity = STUNIntegrity.sha1(key: Array(serverCredentials.pwd.utf8), hmac: hmacSHA1)
        #expect(try reply.withUnsafeBytes { try STUNMessage.verifyIntegrity(of: $0, using: integrity) } == .valid)
        #expect(try reply.withUnsafeBytes { try STUNMessage.verifyFingerprint(of: $0) } == .valid)
        #expect(agent.peerAddresses[peer] == .zero)
        #expect(agent.stats.requests == 1)
        #expect(agent.selectedAddress == nil)
    }

    @Test func useCandidateSelectsThePairAndConnects() {
        var agent = makeAgent()
        _ = agent.receive(makeCheck(), from: peer, now: .zero)
        let actions = agent.receive(makeCheck(useCandidate: true), from: peer, now: .zero)
        #expect(actions.dropFirst() == [.selected(peer), .stateChanged(.connected)])
        #expect(agent.state == .connected)
        #expect(agent.selectedAddress == peer)
        #expect(agent.stats.nominations == 1)
        // Renomination of another address switches media there.
        let other = addr("203.0.113.9", 4000)
        let again = agent.receive(makeCheck(useCandidate: true), from: other, now: .zero)
        #expect(again.dropFirst() == [.selected(other)])
    }

    @Test(arguments: [
        ("wrong local ufrag", makeCheck(username: "nope:cliU"), UInt16(401)),
        ("wrong remote ufrag", makeCheck(username: "srvU:other"), UInt16(401)),
        ("no colon", makeCheck(username: "srvUcliU"), UInt16(401)),
        ("wrong password", makeCheck(password: "not-the-server-password-x"), UInt16(401)),
        ("unknown required attribute",
         makeCheck(extra: [.unknown(type: STUNAttributeType(rawValue: 0x7F01), value: [1, 2, 3, 4])]), UInt16(420)),
    ])
    func rejectsBadChecks(_ name: String, _ check: [UInt8], _ code: UInt16) throws {
        var agent = makeAgent()
        let actions = agent.receive(check, from: peer, now: .zero)
        let reply = try STUNMessage(parsing: try #require(sentBytes(actions).first))
        #expect(reply.type == .bindingError)
        #expect(reply.errorCode?.code == code)
        #expect(agent.state == .new)
        #expect(agent.peerAddresses.isEmpty)
        #expect(agent.stats.unauthenticated + agent.stats.unknownAttributes == 1)
        // 401 answers carry no MESSAGE-INTEGRITY (RFC 8489 §9.1.4); 420 is signed.
        #expect((reply.attribute(.messageIntegrity) != nil) == (code == 420))
    }

    @Test func missingIntegrityIsA400() throws {
        var agent = makeAgent()
        let bare = try STUNMessage(type: .bindingRequest, transactionID: .init(high: 3, low: 4),
                                   attributes: [.username("srvU:cliU")]).serialized(fingerprint: true)
        let reply = try STUNMessage(parsing: try #require(sentBytes(agent.receive(bare, from: peer, now: .zero)).first))
        #expect(reply.errorCode?.code == 400)
        #expect(agent.stats.unauthenticated == 1)
    }

    @Test func missingOrBadFingerprintIsDroppedAndCounted() {
        var agent = makeAgent()
        #expect(agent.receive(makeCheck(fingerprint: false), from: peer, now: .zero).isEmpty)
        var corrupted = makeCheck()
        corrupted[corrupted.count - 1] ^= 0xFF
        #expect(agent.receive(corrupted, from: peer, now: .zero).isEmpty)
        #expect(agent.receive([0x16, 0xFE, 0xFD, 0, 0], from: peer, now: .zero).isEmpty)
        #expect(agent.receive([], from: peer, now: .zero).isEmpty)
        #expect(agent.stats.malformed == 4)
        #expect(agent.state == .new)
    }

    @Test func peerClaimingControlledGets487() throws {
        var agent = makeAgent()
        for tieBreaker: UInt64 in [1, .max] {
            let actions = agent.receive(makeCheck(controlling: false, tieBreaker: tieBreaker), from: peer, now: .zero)
            let reply = try STUNMessage(parsing: try #require(sentBytes(actions).first))
            #expect(reply.errorCode?.code == 487)
            #expect(reply.attribute(.messageIntegrity) != nil)
        }
        #expect(agent.stats.roleConflicts == 2)
        #expect(agent.state == .new)
    }

    @Test func consentLossDisconnectsThenFailsAt30Seconds() {
        var agent = makeAgent()
        var clock = VirtualClock()
        _ = agent.receive(makeCheck(useCandidate: true), from: peer, now: clock.now)
        #expect(agent.nextDeadline == clock.now.advanced(by: .seconds(5)))
        clock.advance(.seconds(4))
        #expect(agent.tick(now: clock.now).isEmpty)
        clock.advance(.seconds(1))
        #expect(states(agent.tick(now: clock.now)) == [.disconnected])
        // Media keeps arriving, which revives the pair but does not refresh consent.
        #expect(states(agent.noteTraffic(from: peer, now: clock.now)) == [.connected])
        while clock.now < ICEInstant.zero.advanced(by: .seconds(29)) {
            clock.advance(.seconds(1))
            _ = agent.noteTraffic(from: peer, now: clock.now)
            #expect(agent.tick(now: clock.now).isEmpty)
        }
        clock.advance(.seconds(1))
        #expect(states(agent.tick(now: clock.now)) == [.failed])
        #expect(agent.failure?.code == .mediaConnection)
        #expect(agent.nextDeadline == nil)
    }

    @Test func consentChecksKeepTheConnectionAlive() {
        var agent = makeAgent()
        var clock = VirtualClock()
        _ = agent.receive(makeCheck(useCandidate: true), from: peer, now: clock.now)
        for i in 0..<20 {
            clock.advance(.milliseconds(4000))
            #expect(agent.tick(now: clock.now).isEmpty)
            _ = agent.receive(makeCheck(id: .init(high: 9, low: UInt64(i))), from: peer, now: clock.now)
        }
        #expect(agent.state == .connected)
    }

    @Test func restartHonoursOldCredentialsUntilTheNewOnesArrive() throws {
        var agent = makeAgent()
        _ = agent.receive(makeCheck(useCandidate: true), from: peer, now: .zero)
        let newServer = ICECredentials(ufrag: "srv2", pwd: "serverpassword2222222222")
        let newClient = ICECredentials(ufrag: "cli2", pwd: "clientpassword2222222222")
        #expect(agent.restart(localCredentials: newServer, remoteCredentials: newClient).isEmpty)
        #expect(agent.state == .connected)
        // Consent under the old credentials is still answered.
        let old = agent.receive(makeCheck(), from: peer, now: .zero)
        #expect(try STUNMessage(parsing: sentBytes(old)[0]).type == .bindingSuccess)
        // The new nomination (same address) is reported again.
        let renominated = agent.receive(makeCheck(username: "srv2:cli2", password: newServer.pwd, useCandidate: true),
                                        from: peer, now: .zero)
        #expect(renominated.dropFirst() == [.selected(peer)])
        // Now the old credentials are gone.
        let stale = agent.receive(makeCheck(), from: peer, now: .zero)
        #expect(try STUNMessage(parsing: sentBytes(stale)[0]).errorCode?.code == 401)
    }

    /// Restarts that find no path (an outage: the peer restarts every few seconds) keep the
    /// credentials the pair was selected with, so the peer's consent checks on it still work
    /// when the network comes back; the restarts in between are forgotten.
    @Test func restartsWithoutNominationKeepTheSelectedPairsCredentials() throws {
        var agent = makeAgent()
        _ = agent.receive(makeCheck(useCandidate: true), from: peer, now: .zero)
        for n in 2...4 {
            let server = ICECredentials(ufrag: "srv\(n)", pwd: "serverpassword\(n)\(n)\(n)\(n)\(n)\(n)\(n)\(n)\(n)\(n)")
            _ = agent.restart(localCredentials: server, remoteCredentials: ICECredentials(ufrag: "cli\(n)", pwd: "clientpassword\(n)\(n)\(n)\(n)\(n)\(n)\(n)\(n)\(n)\(n)"))
            #expect(agent.previousLocalUfrag == serverCredentials.ufrag)
        }
        let consent = agent.receive(makeCheck(), from: peer, now: .zero)
        #expect(try STUNMessage(parsing: sentBytes(consent)[0]).type == .bindingSuccess)
        let between = agent.receive(makeCheck(username: "srv3:cli3", password: "serverpassword3333333333"), from: peer, now: .zero)
        #expect(try STUNMessage(parsing: sentBytes(between)[0]).errorCode?.code == 401)
    }

    @Test func restartAfterFailureStartsOver() {
        var agent = makeAgent()
        _ = agent.receive(makeCheck(useCandidate: true), from: peer, now: .zero)
        _ = agent.tick(now: ICEInstant.zero.advanced(by: .seconds(30)))
        #expect(agent.state == .failed)
        let newServer = ICECredentials(ufrag: "srv2", pwd: "serverpassword2222222222")
        #expect(states(agent.restart(localCredentials: newServer, remoteCredentials: nil)) == [.new])
        let t = ICEInstant.zero.advanced(by: .seconds(31))
        let actions = agent.receive(makeCheck(username: "srv2:anything", password: newServer.pwd, useCandidate: true),
                                    from: peer, now: t)
        #expect(states(actions) == [.checking, .connected])
    }

    @Test func closeIgnoresEverything() {
        var agent = makeAgent()
        #expect(states(agent.close()) == [.closed])
        #expect(agent.receive(makeCheck(), from: peer, now: .zero).isEmpty)
        #expect(agent.stats.ignored == 1)
    }

    @Test func localUfragRoutesAFirstCheck() {
        #expect(ICELiteAgent.localUfrag(ofBindingRequest: makeCheck()) == "srvU")
        #expect(ICELiteAgent.localUfrag(ofBindingRequest: [1, 2, 3]) == nil)
    }
}
