import AccessToken
import AudioCore
import AudioDevices
import CallQuality
import Foundation
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Synchronization
import Testing
@testable import ParleyVoice

/// The SDK's suites, one at a time: `Voice`'s settings (servers, edge, push provider) are
/// process-wide, so two suites running at once would point each other's calls at the wrong server.
@Suite(.serialized) enum VoiceSDKTests {}

/// A server in this process, tokens for any identity, and `Voice` pointed at it. Tests that use
/// it run one at a time (`Voice`'s settings are process-wide).
struct VoiceTestBed {
    let server: PlatformServer
    let queue = DispatchQueue(label: "voice-test-delegates")

    init(configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.recordingsDirectory = NSTemporaryDirectory() + "parley-voice-recordings-\(getpid())"
        configure(&configuration)
        server = try PlatformServer(configuration: configuration, store: InMemoryAccountStore())
        try server.start()
        Voice.servers = ["test": baseURL]
        Voice.edge = "test"
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    func token(_ identity: String, incoming: Bool = true, outgoingApplication: String? = nil) throws -> String {
        let credentials = server.defaultCredentials
        return try AccessTokenBuilder.mint(accountSid: credentials.account.sid, apiKeySid: credentials.apiKey.sid,
                                           apiSecret: credentials.apiKey.secret, identity: identity, ttl: 600,
                                           grants: [.voice(VoiceGrant(incomingAllow: incoming,
                                                                      outgoingApplicationSid: outgoingApplication))],
                                           now: Int64(Date().timeIntervalSince1970))
    }

    func stop() async { await server.shutdown() }

    /// A device whose microphone plays a sine and whose speaker is written to a WAV file.
    static func toneDevice(_ frequency: Double, recordingTo path: String) throws -> FileAudioDevice {
        let tone = (0..<48_000).map { Int16(8000 * sin(2 * Double.pi * frequency * Double($0) / 48_000)) }
        return try FileAudioDevice(input: WAVFile(sampleRate: 48_000, channels: 1, samples: tone), outputPath: path,
                                   looping: true)
    }

    static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "parley-voice-\(getpid())-\(name).wav"
    }
}

/// Records every delegate callback of a call, and lets a test wait for one.
final class CallEvents: CallDelegate, Sendable {
    enum Event: Equatable {
        case ringing, connected
        case failedToConnect(Int)
        case disconnected(Int?)
        case reconnecting(Int)
        case reconnected
        case warnings(Set<QualityWarning>)
    }

    private let log = Mutex<[(event: Event, at: ContinuousClock.Instant)]>([])

    var events: [Event] { log.withLock { $0.map(\.event) } }

    /// When `event` was last heard.
    func lastTime(of event: Event) -> ContinuousClock.Instant? { log.withLock { $0.last { $0.event == event }?.at } }

    private func record(_ event: Event) { log.withLock { $0.append((event, .now)) } }

    func callDidStartRinging(_ call: Call) { record(.ringing) }
    func callDidConnect(_ call: Call) { record(.connected) }
    func callDidFailToConnect(_ call: Call, error: ParleyError) { record(.failedToConnect(error.code.rawValue)) }
    func callDidDisconnect(_ call: Call, error: ParleyError?) { record(.disconnected(error?.code.rawValue)) }
    func call(_ call: Call, isReconnectingWithError error: ParleyError) { record(.reconnecting(error.code.rawValue)) }
    func callDidReconnect(_ call: Call) { record(.reconnected) }
    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
              previousWarnings: Set<QualityWarning>) { record(.warnings(currentWarnings)) }

    /// Waits until `predicate` holds for the events so far.
    func wait(for what: String, timeout: Duration = .seconds(10), _ predicate: ([Event]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !predicate(events) {
            guard ContinuousClock.now < deadline else {
                throw TestTimeout(description: "no \(what) within \(timeout); events: \(events)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Incoming invites for a listener, kept for the test to act on.
final class InviteInbox: NotificationDelegate, Sendable {
    private let state = Mutex<(invites: [CallInvite], cancelled: [(CancelledCallInvite, Int)])>(([], []))
    private let onInvite: (@Sendable (CallInvite) -> Void)?

    init(onInvite: (@Sendable (CallInvite) -> Void)? = nil) { self.onInvite = onInvite }

    var invites: [CallInvite] { state.withLock { $0.invites } }
    var cancelled: [(CancelledCallInvite, Int)] { state.withLock { $0.cancelled } }

    func callInviteReceived(_ callInvite: CallInvite) {
        state.withLock { $0.invites.append(callInvite) }
        onInvite?(callInvite)
    }

    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: ParleyError) {
        state.withLock { $0.cancelled.append((cancelledCallInvite, error.code.rawValue)) }
    }

    func waitForInvite(timeout: Duration = .seconds(10)) async throws -> CallInvite {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let invite = invites.first { return invite }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestTimeout(description: "no invite within \(timeout)")
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    let description: String
}
