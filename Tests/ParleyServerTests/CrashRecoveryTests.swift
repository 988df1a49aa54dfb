import Foundation
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// Issue 13.2: a `parley-server` killed with SIGKILL in the middle of calls leaves rows `ringing`
/// and `in-progress`; the next process settles them before it serves — final status, end time at
/// the last heartbeat, error 31503 — and sends the `completed` status callbacks they owed, once.
@Suite(.serialized, .tags(.process)) struct CrashRecoveryTests {
    @Test(.timeLimit(.minutes(1))) func aRestartSettlesTheCallsACrashLeftLive() async throws {
        var app: TwiMLTestApp!
        var applicationSid = ""
        let server = try ServerProcess { db in
            let store = try SQLiteAccountStore(path: db)
            let account = try store.ensureDefaultAccount().account
            app = try TwiMLTestApp(authToken: account.authToken)
            applicationSid = try store.createApplication(
                ApplicationDraft(friendlyName: "crash", voiceURL: app.baseURL + "/voice", statusCallback: app.baseURL + "/status"),
                accountSid: account.sid).sid
        }
        defer { server.stop() }
        app.set("/voice", #"<Response><Dial timeout="30"><Client>bob</Client></Dial></Response>"#)

        // One call bridged (alice → bob), one whose <Dial> still rings (carol → dave, who never
        // answers): its parent is in progress (the TwiML answered it), the dialed leg ringing.
        let bob = try TestParty(try await Self.client(server, "bob", listen: true))
        let alice = try TestParty(try await Self.client(server, "alice", application: applicationSid))
        let answered = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await alice.expectConnected()
        let dave = try await Self.client(server, "dave", listen: true)
        let carol = try TestParty(try await Self.client(server, "carol", application: applicationSid))
        app.set("/voice", #"<Response><Dial timeout="60"><Client>dave</Client></Dial></Response>"#)
        let dialing = try await carol.invite(to: "dave")
        _ = try await dave.expect("incoming") { if case .incoming = $0 { true } else { nil } }

        let live = try SQLiteAccountStore(path: server.databasePath).unfinishedCalls()
        #expect(live.count == 4, "two parents and two dialed legs: \(live.map(\.status))")
        // Past one heartbeat, so the end time shows the crash rather than the answer.
        try await Task.sleep(for: .seconds(6))
        let crashedAt = Int64(Date().timeIntervalSince1970)
        server.crash()
        for party in [alice, bob, carol] { await party.close() }
        await dave.close()

        // Well after the crash: the end time must not be the restart's.
        try await Task.sleep(for: .seconds(2))
        let completedBefore = app.requests("/status").filter { $0.parameters["CallStatus"] == "completed" }.count
        let restarted = try ServerProcess(restarting: server)
        defer { restarted.stop() }
        let store = try SQLiteAccountStore(path: restarted.databasePath)
        #expect(try store.unfinishedCalls().isEmpty)
        let ringing = try #require(try store.calls(CallQuery(accountSid: server.credentials.account.sid, parentCallSid: dialing,
                                                              offset: 0, limit: 10)).first).sid
        for sid in [answered, dialing, ringing] {
            let call = try #require(try store.call(sid: sid))
            #expect(call.errorCode == 31503, "\(sid): \(call.errorCode.map(String.init) ?? "no code")")
            let end = try #require(call.endTime)
            #expect(end <= crashedAt && end >= crashedAt - 6, "\(sid) ended at \(end), the crash was at \(crashedAt)")
        }
        #expect(try store.call(sid: answered)?.status == .completed)
        #expect(try store.call(sid: dialing)?.status == .completed)
        #expect(try store.call(sid: ringing)?.status == .failed)
        #expect(try store.call(sid: ringing)?.duration == 0)
        #expect((try store.call(sid: answered)?.duration ?? 0) >= 5)

        // The owed `completed` callbacks arrive, signed, one per parent call.
        let deadline = ContinuousClock.now + .seconds(10)
        var owed: [TwiMLTestApp.Request] = []
        while ContinuousClock.now < deadline {
            owed = app.requests("/status").filter { $0.parameters["ErrorCode"] == "31503" }
            if owed.count >= 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(completedBefore == 0)
        // The application's status callback is the parents' (dialed legs have none of their own).
        #expect(Set(owed.map { $0.parameters["CallSid"] ?? "" }) == [answered, dialing])
        #expect(owed.count == 2)
        #expect(owed.allSatisfy { $0.signatureValid && $0.parameters["CallStatus"] == "completed" })

        // Once: a second restart has nothing left to settle or send.
        restarted.crash()
        let again = try ServerProcess(restarting: restarted)
        defer { again.stop() }
        try await Task.sleep(for: .seconds(1))  // a window in which nothing more may arrive
        #expect(app.requests("/status").filter { $0.parameters["ErrorCode"] == "31503" }.count == owed.count)
    }

    static func client(_ server: ServerProcess, _ identity: String, application: String? = nil,
                       listen: Bool = false) async throws -> SignalingTestClient {
        let client = try await SignalingTestClient(baseURL: server.baseURL,
                                                   token: try server.token(identity: identity, outgoingApplication: application))
        if listen {
            try await client.send(.listen, id: "l1")
            _ = try await client.expect("listening") { if case .listening = $0 { true } else { nil } }
        }
        return client
    }
}
