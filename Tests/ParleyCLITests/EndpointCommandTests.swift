import Foundation
import Glibc
import ParleyStore
import ParleyTestSupport
import Testing

/// `parley endpoint call` and `parley endpoint answer` as users run them: two processes, each a SIP
/// user agent registered with a `parley-server --sip` process. alice's endpoint application dials
/// bob's endpoint (`<Dial><Sip>`); bob answers, alice presses keys that bob prints, alice hangs up
/// after `--duration`, both log out and exit 0. A wrong password exits 1 with the registrar's
/// reason; a missing option exits 2.
@Suite(.serialized, .tags(.process)) struct EndpointCommandTests {
    static let password = "s3cret-pass"


    static func endpointArguments(_ port: Int, username: String, password: String = password) -> [String] {
        ["--registrar", "sip:127.0.0.1:\(port)", "--username", username, "--password", password]
    }

    @Test(.timeLimit(.minutes(2))) func callAndAnswerBetweenTwoEndpoints() async throws {
        let port = try FreePort.udp()
        let app = try TwiMLTestApp(authToken: "unused")
        var usernames: (alice: String, bob: String) = ("", "")
        let server = try ServerProcess(arguments: ["--sip", "127.0.0.1:\(port)"]) { database in
            let store = try SQLiteAccountStore(path: database)
            let account = try store.ensureDefaultAccount().account
            let application = try store.createApplication(ApplicationDraft(friendlyName: "dial bob", voiceURL: app.baseURL + "/voice"),
                                                          accountSid: account.sid)
            let bob = try store.createEndpoint(accountSid: account.sid, username: "bob", password: Self.password, realm: "parley",
                                               alias: "Bob", applicationSid: nil)
            let alice = try store.createEndpoint(accountSid: account.sid, username: "alice", password: Self.password, realm: "parley",
                                                 alias: "Alice", applicationSid: application.sid)
            usernames = (alice.username, bob.username)
        }
        defer { server.stop() }
        app.set("/voice", "<Response><Dial><Sip>sip:\(usernames.bob)@127.0.0.1:\(port)</Sip></Dial></Response>")

        let parley = try CLITestBed.parley
        let bob = try CLIProcess.start(parley, ["endpoint", "answer", "--duration", "30", "--timeout", "30"]
                                       + Self.endpointArguments(port, username: usernames.bob))
        defer { bob.terminate() }
        try await bob.waitForOutput("waiting for a call", timeout: .seconds(15))
        let alice = try CLIProcess.start(parley, ["endpoint", "call", "anyone", "--digits", "42", "--duration", "3",
                                                  "--header", "X-PH-Ticket=T-1"] + Self.endpointArguments(port, username: usernames.alice))
        defer { alice.terminate() }

        let aliceStatus = await alice.exitStatus(timeout: .seconds(40))
        let bobStatus = await bob.exitStatus(timeout: .seconds(15))
        print("alice:\n\(alice.output)\nbob:\n\(bob.output)")
        #expect(aliceStatus == 0, "\(alice.output)")
        #expect(bobStatus == 0, "\(bob.output)")
        for line in ["registering", "logged in", "calling", "answered", "setup ", "sent digits 42", "hung up (by us)", "logged out"] {
            #expect(alice.output.contains(line), "alice's output lacks \(line)")
        }
        for line in ["logged in", "incoming call", "answered", "received digit 4", "received digit 2", "hung up (by the far end)", "logged out"] {
            #expect(bob.output.contains(line), "bob's output lacks \(line)")
        }
        // The log-out happened: neither binding is left in the server's store.
        let store = try SQLiteAccountStore(path: server.databasePath)
        let account = try store.ensureDefaultAccount().account
        #expect(try store.sipBindings(accountSid: account.sid, aor: "sip:\(usernames.alice)@127.0.0.1").isEmpty)
        #expect(try store.sipBindings(accountSid: account.sid, aor: "sip:\(usernames.bob)@127.0.0.1").isEmpty)
        await app.shutdown()
    }

    /// SIGINT while waiting for a call: the endpoint logs out (the binding is gone) and exits 130.
    @Test(.timeLimit(.minutes(1))) func interruptedAnswerLogsOut() async throws {
        let port = try FreePort.udp()
        var username = ""
        let server = try ServerProcess(arguments: ["--sip", "127.0.0.1:\(port)"]) { database in
            let store = try SQLiteAccountStore(path: database)
            let account = try store.ensureDefaultAccount().account
            username = try store.createEndpoint(accountSid: account.sid, username: "dave", password: Self.password, realm: "parley",
                                                alias: "Dave", applicationSid: nil).username
        }
        defer { server.stop() }
        let store = try SQLiteAccountStore(path: server.databasePath)
        let account = try store.ensureDefaultAccount().account
        let answer = try CLIProcess.start(try CLITestBed.parley, ["endpoint", "answer", "--timeout", "60"]
                                          + Self.endpointArguments(port, username: username))
        defer { answer.terminate() }
        try await answer.waitForOutput("waiting for a call", timeout: .seconds(15))
        // The server's store follows its registrar a few milliseconds behind: read once it has settled.
        func bindings(settlingAt count: Int) async throws -> [SIPBindingRecord] {
            let deadline = ContinuousClock.now + .seconds(2)
            var found = try store.sipBindings(accountSid: account.sid, aor: "sip:\(username)@127.0.0.1")
            while found.count != count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                found = try store.sipBindings(accountSid: account.sid, aor: "sip:\(username)@127.0.0.1")
            }
            return found
        }
        #expect(try await bindings(settlingAt: 1).count == 1)
        answer.signal(SIGINT)
        #expect(await answer.exitStatus(timeout: .seconds(10)) == 130)
        #expect(answer.output.contains("SIGINT: no longer waiting") && answer.output.contains("logged out"), "\(answer.output)")
        #expect(try await bindings(settlingAt: 0).isEmpty)
    }

    @Test(.timeLimit(.minutes(1))) func wrongPasswordExitsOneAndBadUsageTwo() async throws {
        let port = try FreePort.udp()
        var username = ""
        let server = try ServerProcess(arguments: ["--sip", "127.0.0.1:\(port)"]) { database in
            let store = try SQLiteAccountStore(path: database)
            let account = try store.ensureDefaultAccount().account
            username = try store.createEndpoint(accountSid: account.sid, username: "carol", password: Self.password, realm: "parley",
                                                alias: "Carol", applicationSid: nil).username
        }
        defer { server.stop() }
        let parley = try CLITestBed.parley
        let wrong = try CLIProcess.start(parley, ["endpoint", "answer", "--timeout", "10"]
                                         + Self.endpointArguments(port, username: username, password: "not-the-password"))
        #expect(await wrong.exitStatus(timeout: .seconds(20)) == 1)
        #expect(wrong.output.contains("login failed:") && wrong.output.contains("(403)"), "\(wrong.output)")

        let usage = try CLIProcess.start(parley, ["endpoint", "call", "bob", "--username", "u", "--password", "p"], captureStandardError: true)
        #expect(await usage.exitStatus(timeout: .seconds(10)) == 2)
        #expect(usage.output.contains("--registrar"), "\(usage.output)")
        let badHeader = try CLIProcess.start(parley, ["endpoint", "call", "bob", "--header", "Foo=bar"]
                                             + Self.endpointArguments(port, username: username), captureStandardError: true)
        #expect(await badHeader.exitStatus(timeout: .seconds(10)) == 2)
        #expect(badHeader.output.contains("X-"), "\(badHeader.output)")
    }
}
