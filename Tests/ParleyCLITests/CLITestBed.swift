import Foundation
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// A `parley-server` process and `parley` commands pointed at it with tokens from its store.
struct CLITestBed {
    let server: ServerProcess

    init(serverArguments: [String] = []) throws {
        server = try ServerProcess(arguments: serverArguments)
    }

    static var parley: String { get throws { try BuiltProducts.path("parley") } }

    /// `parley listen` as `identity`, once it says it is listening.
    func listen(_ identity: String, _ extra: [String] = []) async throws -> CLIProcess {
        let listener = try CLIProcess.start(try Self.parley, ["listen", "--token", try server.token(identity: identity),
                                                              "--server", server.baseURL] + extra)
        try await listener.waitForOutput("listening as \(identity)")
        return listener
    }

    /// `parley call to` as `identity`, minting its token from the store's key given as flags
    /// (so `--app` in `extra` lands in the token).
    func call(_ to: String, as identity: String = "alice", _ extra: [String] = []) throws -> CLIProcess {
        let key = server.credentials
        return try CLIProcess.start(try Self.parley, ["call", to, "--identity", identity, "--server", server.baseURL,
                                                      "--account-sid", key.account.sid, "--api-key", key.apiKey.sid,
                                                      "--api-secret", key.apiKey.secret] + extra)
    }

    /// A call between two processes, once both print `connected`: `parley listen` as bob,
    /// `parley call bob` as alice (with `aliceFlags`), and each side's call SID.
    struct ConnectedPair {
        let alice: CLIProcess, bob: CLIProcess
        let aliceSid: String, bobSid: String
    }

    func connectedPair(aliceFlags: [String]) async throws -> ConnectedPair {
        let bob = try await listen("bob")
        let alice = try call("bob", aliceFlags)
        try await alice.waitForOutput("connected CA")
        try await bob.waitForOutput("connected CA")
        return ConnectedPair(alice: alice, bob: bob, aliceSid: try Self.callSid(in: alice.output),
                             bobSid: try Self.callSid(in: bob.output))
    }

    /// A callee that listens and never answers: raw signaling, so the test sees each invite and cancel.
    func silentCallee(_ identity: String) async throws -> SignalingTestClient {
        let client = try await SignalingTestClient(baseURL: server.baseURL, token: try server.token(identity: identity))
        try await client.send(.listen, id: "listen")
        _ = try await client.expect("listening") { if case .listening = $0 { true } else { nil } }
        return client
    }

    /// A voice application whose Voice URL is `url` (created over REST), its `AP…` SID.
    func application(voiceURL url: String) async throws -> String {
        let created = try await server.rest("POST", "/Applications.json", form: [("FriendlyName", "cli-test"), ("VoiceUrl", url)])
        return try #require(created.json["sid"] as? String, "no application: \(created.body)")
    }

    /// The first `CA…` SID printed after `connected ` (or in `incoming call `) in `output`.
    static func callSid(in output: String, after marker: String = "connected ") throws -> String {
        let match = try #require(output.firstMatch(of: try Regex("\(marker)(CA[0-9a-f]{32})")), "no call SID after \(marker) in \(output)")
        return String(try #require(match.output[1].substring))
    }
}

/// A non-answering callee's next invite, its call SID.
func incomingSid(_ callee: SignalingTestClient, timeout: Duration = .seconds(10)) async throws -> String {
    try await callee.expect("an incoming call", timeout: timeout) { if case .incoming(let incoming) = $0 { incoming.callSid } else { nil } }
}

/// The cancel of an invite, its code.
func cancelCode(_ callee: SignalingTestClient, timeout: Duration) async throws -> Int {
    try await callee.expect("the invite's cancel", timeout: timeout) { if case .cancelled(let cancelled) = $0 { cancelled.code } else { nil } }
}
