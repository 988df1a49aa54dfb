import Foundation
import HTTPWire
import ParleyNet
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing
import WebSocketWire

/// `parley keys revoke SK…`, run as its own process against the store of a running
/// `parley-server`, ends what that key's tokens opened within about a second: the signaling
/// session gets `hangup` 20103 for its live call, then `error` 20103 and close 4401; the call's
/// other party hangs up; the call record carries 20103; the key's echo session is closed. Another
/// key's session stays up.
@Suite(.serialized, .tags(.process)) struct RevocationProcessTests {
    @Test(.timeLimit(.minutes(2))) func revokingFromTheCLIEndsSessionsCallsAndEchoSessions() async throws {
        try await withServerProcess(keyNames: ["doomed", "kept"]) { base, db, keys, http in
            try await Self.run(base: base, db: db, doomed: keys[0], kept: keys[1], http: http)
        }
    }

    private static func run(base: String, db: String, doomed: CLIKey, kept: CLIKey, http: HTTPClient) async throws {
        // alice (doomed key) calls bob (kept key); both legs connect.
        let bob = try TestParty(try await SignalingTestClient(baseURL: base, token: kept.token("bob")))
        try await bob.signaling.send(.listen, id: "l1")
        _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        let alice = try TestParty(try await SignalingTestClient(baseURL: base, token: doomed.token("alice")))
        try await alice.signaling.send(.listen, id: "l1")
        _ = try await alice.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        let callSid = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        try await alice.expectConnected()
        // And an echo session of the doomed key.
        #expect(try await EchoRequests.post(http, base: base, token: doomed.token("alice_echo")).status == 201)
        #expect(try await mediaSessions(http, base) == 3)

        let start = ContinuousClock.now
        let revoke = try Executables.run("parley", ["keys", "revoke", doomed.sid, "--db", db])
        let cliDone = ContinuousClock.now
        #expect(revoke.status == 0, "\(revoke.stderr)")
        let hangup = try await alice.expectHangup(timeout: .seconds(5))
        let hangupAt = ContinuousClock.now
        #expect(hangup.callSid == callSid)
        #expect(hangup.code == 20103)
        let error = try await alice.signaling.expect("error", timeout: .seconds(5)) { if case .error(let e) = $0 { e } else { nil } }
        #expect(error.code == 20103)
        #expect(error.message == "API key \(doomed.sid) was revoked")
        while try await alice.signaling.next(timeout: .seconds(5)) != nil {}
        let closedAt = ContinuousClock.now
        #expect(alice.signaling.webSocket.closeCode?.rawValue == SignalingCloseCode.unauthorized)
        print("parley keys revoke: process \(cliDone - start); revoke committed → hangup 20103 \(hangupAt - cliDone), "
              + "→ close 4401 \(closedAt - cliDone)")
        #expect(closedAt - cliDone < .seconds(5))

        // bob's leg ends; the call record (read from the same SQLite file) carries the code.
        _ = try await bob.expectHangup()
        let store = try SQLiteAccountStore(path: db)
        #expect(await eventually { (try? store.call(sid: callSid))?.errorCode == 20103 })
        let record = try #require(try store.call(sid: callSid))
        #expect(record.status == .completed)
        #expect(record.errorMessage == "API key \(doomed.sid) was revoked")
        // Every media session is gone: both legs and the echo session.
        #expect(try await eventually { try await mediaSessions(http, base) == 0 })
        // bob (the kept key) is still served; alice's token no longer is.
        try await bob.signaling.send(.ping, id: "p")
        _ = try await bob.signaling.expect("pong") { if case .pong = $0 { true } else { nil } }
        await #expect(throws: (any Error).self) { _ = try await SignalingTestClient(baseURL: base, token: doomed.token("alice")) }
        await alice.close()
        await bob.close()
    }

    /// The `parley_media_sessions` gauge from `/metrics`.
    private static func mediaSessions(_ http: HTTPClient, _ base: String) async throws -> Int? {
        let metrics = try await http.get(base + "/metrics")
        let line = metrics.bodyText.split(separator: "\n").first { $0.hasPrefix("parley_media_sessions ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }
}
