import ParleyCore
import ParleyEndpoint
import ParleyTestClock
import SIP
import SIPWire
import Testing

/// ``Registration`` on a virtual clock: the owner's part (send, schedule, report) is played by
/// ``Harness``, which keeps the timers the machine asks for and fires them as the clock passes them.
@Suite struct EndpointRegistrationTests {
    static let password = "s3cret-pw"
    static let realm = "parley"

    /// The owner of a ``Registration``: collects sent requests and reports, keeps timers.
    final class Harness {
        let clock = VirtualClock()
        var machine: Registration
        var sent: [SIPRequest] = []
        var reports: [RegistrationAction] = []
        var timers: [(RegistrationTimer, MonotonicInstant)] = []

        init(expires: UInt32 = 600, reliable: Bool = false) {
            let contact = SIPNameAddress(uri: SIPURI(user: "alice", host: .ipv4("127.0.0.1"), port: 5070))
            let config = RegistrationConfiguration(
                registrar: SIPURI(host: .ipv4("127.0.0.1"), port: 5060),
                addressOfRecord: SIPURI(user: "alice", host: .ipv4("127.0.0.1")), username: "alice", password: EndpointRegistrationTests.password,
                expires: expires, contact: contact, sentBy: SIPSentBy(transport: reliable ? "TCP" : "UDP", host: .ipv4("127.0.0.1"), port: 5070),
                reliable: reliable)
            machine = Registration(configuration: config)
        }

        func apply(_ actions: [RegistrationAction]) {
            for action in actions {
                switch action {
                case .send(let request): sent.append(request)
                case .startTimer(let timer, let at): timers.append((timer, at))
                default: reports.append(action)
                }
            }
        }

        /// Moves the virtual clock by `duration`, firing due timers in deadline order.
        func advance(by duration: Duration) {
            let target = clock.now.advanced(by: duration)
            while let index = timers.indices.filter({ timers[$0].1 <= target }).min(by: { timers[$0].1 < timers[$1].1 }) {
                let (timer, at) = timers.remove(at: index)
                clock.advance(to: at)
                apply(machine.fired(timer, now: clock.now))
            }
            clock.advance(to: target)
        }

        func respond(_ status: Int, headers: SIPHeaders = [:]) {
            let request = sent.last!
            apply(machine.received(SIPResponse(replyingTo: request, statusCode: status, toTag: "reg1", headers: headers), now: clock.now))
        }

        func challenge(_ algorithms: [String] = ["MD5"], stale: Bool = false, status: Int = 401) {
            var headers = SIPHeaders()
            for algorithm in algorithms {
                headers.add(status == 401 ? "WWW-Authenticate" : "Proxy-Authenticate",
                            #"Digest realm="parley", nonce="n-\#(sent.count)", algorithm=\#(algorithm), qop="auth""# + (stale ? ", stale=true" : ""))
            }
            respond(status, headers: headers)
        }

        func ok(expires: UInt32) {
            var headers = SIPHeaders()
            headers.add("Contact", "<sip:alice@127.0.0.1:5070>;expires=\(expires)")
            respond(200, headers: headers)
        }
    }

    /// The digest answer in `request` checked as a registrar checks it (RFC 7616 §3.4.1).
    static func verifyAnswer(_ request: SIPRequest, header: String = "Authorization") throws -> SIPDigestCredentials {
        let credentials = try #require(try request.headers.first(header, as: SIPDigestCredentials.self))
        let algorithm = try #require(DigestAlgorithm(token: credentials.algorithm))
        let expected = DigestResponse.compute(algorithm: algorithm, ha1: algorithm.userHash(username: "alice", realm: realm, password: password),
                                              nonce: credentials.nonce, cnonce: credentials.cnonce, nc: credentials.nonceCount,
                                              qop: credentials.qop, method: "REGISTER", uri: credentials.uri)
        #expect(credentials.response == expected)
        #expect(credentials.uri == request.uri.description)
        return credentials
    }

    @Test func logsInWithDigestRefreshesAtHalfTheExpiryAndLogsOut() throws {
        let h = Harness(expires: 600)
        h.apply(h.machine.login(now: h.clock.now))
        let first = try #require(h.sent.first)
        #expect(first.method == .register)
        #expect(first.expires == 600)
        #expect(first.cseq?.number == 1)
        #expect(first.headers["Authorization"] == nil)
        #expect(first.contacts.first?.address?.uri.description == "sip:alice@127.0.0.1:5070")

        h.challenge()
        #expect(h.sent.count == 2)
        let answered = h.sent[1]
        #expect(answered.cseq?.number == 2)
        #expect(answered.callID == first.callID)
        #expect(answered.via?.branch != first.via?.branch)
        #expect(try Self.verifyAnswer(answered).algorithm == "MD5")

        h.advance(by: .milliseconds(40))
        h.ok(expires: 300)  // the registrar may grant less than asked
        #expect(h.reports == [.loggedIn(expires: 300)])
        #expect(h.machine.grantedExpires == 300)

        // Nothing before half the granted expiry; the refresh at 150 s answers the last challenge at once.
        h.advance(by: .seconds(149))
        #expect(h.sent.count == 2)
        h.advance(by: .seconds(1))
        #expect(h.sent.count == 3)
        let refresh = h.sent[2]
        #expect(refresh.cseq?.number == 3 && refresh.expires == 600)
        _ = try Self.verifyAnswer(refresh)
        h.ok(expires: 300)
        #expect(h.reports == [.loggedIn(expires: 300)])  // a refresh is not a new login

        h.apply(h.machine.logout(now: h.clock.now))
        let bye = try #require(h.sent.last)
        #expect(bye.expires == 0 && bye.cseq?.number == 4)
        h.challenge()  // a fresh nonce for the removal too
        #expect(h.sent.last?.expires == 0)
        h.respond(200)
        #expect(h.reports == [.loggedIn(expires: 300), .loggedOut])
        #expect(h.machine.state == .loggedOut)
        // The refresh timer that was pending is stale now.
        h.advance(by: .seconds(3600))
        #expect(h.sent.count == 5)
    }

    @Test func prefersSHA256WhenBothAreOffered() throws {
        let h = Harness()
        h.apply(h.machine.login(now: h.clock.now))
        h.challenge(["MD5", "SHA-256"])
        #expect(try Self.verifyAnswer(h.sent[1]).algorithm == "SHA-256")
        h.ok(expires: 600)
        #expect(h.reports == [.loggedIn(expires: 600)])
    }

    @Test func answersAProxyChallengeInProxyAuthorization() throws {
        let h = Harness()
        h.apply(h.machine.login(now: h.clock.now))
        h.challenge(status: 407)
        _ = try Self.verifyAnswer(h.sent[1], header: "Proxy-Authorization")
    }

    @Test func wrongPasswordFailsWithTheRegistrarsReason() {
        let h = Harness()
        h.apply(h.machine.login(now: h.clock.now))
        h.challenge()
        h.respond(403)
        guard case .loginFailed(let error) = h.reports.first else { Issue.record("no failure: \(h.reports)"); return }
        #expect(error.code == 403)
        #expect(error.reason.contains("wrong username or password"))
        h.advance(by: .seconds(64))
        #expect(h.sent.count == 2)  // nothing resent after the final response
    }

    @Test func aSecondChallengeFailsUnlessStale() {
        let h = Harness()
        h.apply(h.machine.login(now: h.clock.now))
        h.challenge()
        h.challenge(stale: true)  // the nonce expired: answered again
        #expect(h.sent.count == 3)
        h.challenge()
        #expect(h.sent.count == 3)
        guard case .loginFailed(let error) = h.reports.first else { Issue.record("no failure: \(h.reports)"); return }
        #expect(error.code == 403)
    }

    @Test func retransmitsOverUDPAndTimesOutAtTimerF() {
        let h = Harness()
        h.apply(h.machine.login(now: h.clock.now))
        // Timer E: 0.5, 1, 2, 4, 4, … s (RFC 3261 §17.1.2.2), Timer F at 32 s.
        h.advance(by: .milliseconds(500))
        #expect(h.sent.count == 2)
        h.advance(by: .seconds(1))
        #expect(h.sent.count == 3)
        h.advance(by: .seconds(2))
        #expect(h.sent.count == 4)
        #expect(h.reports.isEmpty)
        h.advance(by: .seconds(29))
        guard case .loginFailed(let error) = h.reports.first else { Issue.record("no failure: \(h.reports)"); return }
        #expect(error.code == 408)
        #expect(h.sent.allSatisfy { $0.via?.branch == h.sent[0].via?.branch })
    }

    @Test func doesNotRetransmitOverTCP() {
        let h = Harness(reliable: true)
        h.apply(h.machine.login(now: h.clock.now))
        h.advance(by: .seconds(31))
        #expect(h.sent.count == 1)
        h.advance(by: .seconds(1))
        #expect(h.reports.count == 1)
    }

    @Test func intervalTooBriefIsRetriedWithMinExpires() {
        let h = Harness(expires: 120)
        h.apply(h.machine.login(now: h.clock.now))
        var headers = SIPHeaders()
        headers.add("Min-Expires", "3600")
        h.respond(423, headers: headers)
        #expect(h.sent.last?.expires == 3600)
        h.ok(expires: 3600)
        #expect(h.reports == [.loggedIn(expires: 3600)])
    }

    @Test func responsesToAnotherRequestAreIgnored() {
        let h = Harness()
        h.apply(h.machine.login(now: h.clock.now))
        var other = h.sent[0]
        other.headers.set("Call-ID", "someone-else")
        h.apply(h.machine.received(SIPResponse(replyingTo: other, statusCode: 200), now: h.clock.now))
        #expect(h.reports.isEmpty)
        #expect(h.machine.state == .registering)
    }

    @Test func logoutBeforeLoginReportsLoggedOutAtOnce() {
        let h = Harness()
        h.apply(h.machine.logout(now: h.clock.now))
        #expect(h.reports == [.loggedOut])
        #expect(h.sent.isEmpty)
    }

    @Test func aFailedRefreshReportsLoginFailed() {
        let h = Harness(expires: 120)
        h.apply(h.machine.login(now: h.clock.now))
        h.ok(expires: 120)
        h.advance(by: .seconds(60))
        #expect(h.sent.count == 2)
        h.respond(503)
        #expect(h.reports.count == 2)
        guard case .loginFailed(let error) = h.reports.last else { Issue.record("\(h.reports)"); return }
        #expect(error.code == 503)
    }
}
