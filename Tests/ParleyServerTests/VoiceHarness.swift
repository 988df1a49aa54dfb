import AccessToken
import Foundation
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import RoomService
import Signaling
import Testing
import WebRTC

/// An in-process platform with a TwiML test app and helpers to place calls between clients.
struct VoiceHarness {
    let server: PlatformServer
    let store: any PlatformStore
    let app: TwiMLTestApp
    let credentials: DefaultCredentials

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    static func start(store: (any PlatformStore)? = nil, clock: any MonotonicClock = SystemClock(),
                      roomMedia: (any RoomMediaPlane)? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> VoiceHarness {
        if ProcessInfo.processInfo.environment["PARLEY_TEST_LOG"] != nil { Log.setLevel(.debug) }
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-recordings-\(UUID().uuidString)"
        configure(&config)
        let store = store ?? InMemoryAccountStore()
        let server = try PlatformServer(configuration: config, store: store, clock: clock, roomMedia: roomMedia)
        try server.start()
        let credentials = server.defaultCredentials
        let app = try TwiMLTestApp(authToken: credentials.account.authToken)
        return VoiceHarness(server: server, store: store, app: app, credentials: credentials)
    }

    func stop() async {
        await app.shutdown()
        await server.shutdown()
    }

    /// An application whose Voice URL is the test app's `path`, with status callbacks to `/status`.
    func makeApplication(path: String = "/voice") throws -> Application {
        app.set("/status", "<Response/>")
        return try store.createApplication(ApplicationDraft(friendlyName: "test app", voiceURL: app.baseURL + path,
                                                     statusCallback: app.baseURL + "/status"),
                                    accountSid: credentials.account.sid)
    }

    /// A token for `identity`: a voice grant, or (`voice` false) a video grant for `videoRoom` (any room when nil).
    func token(_ identity: String, application: String? = nil, voice: Bool = true, videoRoom: String? = nil) throws -> String {
        let grants: [AccessTokenGrant] = voice
            ? [.voice(VoiceGrant(incomingAllow: true, outgoingApplicationSid: application))]
            : [.video(VideoGrant(room: videoRoom))]
        return try AccessTokenBuilder.mint(accountSid: credentials.account.sid, apiKeySid: credentials.apiKey.sid,
                                           apiSecret: credentials.apiKey.secret, identity: identity, ttl: 600,
                                           grants: grants, now: Int64(Date().timeIntervalSince1970))
    }

    /// alice calls bob, listening, who accepts; returns once her call is connected. Through a new
    /// application (its Voice URL `/voice`, whose document dials bob) or, without, directly.
    func aliceDialsBob(throughApplication: Bool = true) async throws
        -> (alice: TestParty, bob: TestParty, callSid: String, bobSid: String) {
        let app = throughApplication ? try makeApplication() : nil
        let bob = try TestParty(try await client("bob", listen: true))
        let alice = try TestParty(try await client("alice", application: app?.sid))
        let callSid = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await alice.expectConnected()
        return (alice, bob, callSid, incoming.callSid)
    }

    func client(_ identity: String, application: String? = nil, listen: Bool = false) async throws -> SignalingTestClient {
        let client = try await SignalingTestClient(baseURL: baseURL, token: token(identity, application: application))
        if listen {
            try await client.send(.listen, id: "l1")
            _ = try await client.expect("listening") { if case .listening = $0 { true } else { nil } }
        }
        return client
    }
}

