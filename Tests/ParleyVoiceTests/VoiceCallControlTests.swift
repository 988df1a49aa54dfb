import AccessToken
import AudioDevices
import Foundation
import HTTPWire
import ParleyCore
import ParleyNet
import ParleyServer
import Synchronization
import Testing
@testable import ParleyVoice

/// What happens inside a connected call and around it: call messages both ways, mute and hold as
/// the far end hears them, incoming calls through push (`register` → payload →
/// `handleNotification` → accept or reject → `unregister`), and a listen the token does not allow.
extension VoiceSDKTests {
@Suite struct VoiceCallControlTests {
    /// alice (700 Hz) is connected to bob; returns both calls and bob's events.
    static func connectedPair(_ bed: VoiceTestBed, aliceMessages: (any CallMessageDelegate)? = nil,
                              bobMessages: (any CallMessageDelegate)? = nil) async throws
        -> (alice: Call, bob: Call, listener: Listener, bobEvents: CallEvents, aliceEvents: CallEvents) {
        let bobEvents = CallEvents(), aliceEvents = CallEvents()
        let bobCall = Mutex<Call?>(nil)
        let queue = bed.queue
        let inbox = InviteInbox { invite in
            bobCall.withLock {
                $0 = invite.accept(options: AcceptOptions(callInvite: invite) {
                    $0.audioDevice = try? VoiceTestBed.toneDevice(400, recordingTo: VoiceTestBed.temporaryPath("ctl-bob"))
                    $0.callMessageDelegate = bobMessages
                    $0.delegateQueue = queue
                }, delegate: bobEvents)
            }
        }
        let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: queue)
        let alice = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
            $0.params = ["To": "bob"]
            $0.audioDevice = try? VoiceTestBed.toneDevice(700, recordingTo: VoiceTestBed.temporaryPath("ctl-alice"))
            $0.callMessageDelegate = aliceMessages
            $0.delegateQueue = queue
        }, delegate: aliceEvents)
        try await aliceEvents.wait(for: "alice connected") { $0.contains(.connected) }
        try await bobEvents.wait(for: "bob connected") { $0.contains(.connected) }
        return (alice, try #require(bobCall.withLock { $0 }), listener, bobEvents, aliceEvents)
    }

    @Test func callMessagesPassBothWays() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let aliceInbox = MessageInbox(), bobInbox = MessageInbox()
        let (alice, bob, listener, _, _) = try await Self.connectedPair(bed, aliceMessages: aliceInbox, bobMessages: bobInbox)
        let sent = try #require(alice.sendMessage(CallMessage(content: #"{"order": 42}"#)))
        try await bobInbox.wait { !$0.received.isEmpty }
        #expect(bobInbox.snapshot.received.first?.content == #"{"order": 42}"#)
        #expect(bobInbox.snapshot.received.first?.contentType == "application/json")
        try await aliceInbox.wait { $0.sent.contains(sent) }
        _ = bob.sendMessage(CallMessage(content: "pong", contentType: "text/plain"))
        try await aliceInbox.wait { !$0.received.isEmpty }
        #expect(aliceInbox.snapshot.received.first?.content == "pong")
        #expect(alice.sendMessage(CallMessage(content: String(repeating: "x", count: 10 * 1024 + 1))) == nil)
        alice.disconnect()
        await listener.stop()
    }

    @Test func muteAndHoldChangeWhatTheFarEndHears() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let (alice, bob, listener, _, _) = try await Self.connectedPair(bed)
        func bobHears() async throws -> Double {
            try await Task.sleep(for: .milliseconds(700))
            return await bob.stats().remoteAudioTrackStats.first?.audioLevel ?? -1
        }
        let normal = try await bobHears()
        alice.isMuted = true
        #expect(alice.isMuted)
        let muted = try await bobHears()
        alice.isMuted = false
        alice.isOnHold = true
        #expect(alice.isOnHold)
        let held = try await bobHears()
        alice.isOnHold = false
        let resumed = try await bobHears()
        #expect(normal > 0.1, "bob heard alice's tone at \(normal)")
        #expect(muted < 0.01, "bob heard \(muted) while alice was muted")
        #expect(held > 0.01 && held < normal, "bob heard hold music at \(held)")
        #expect(resumed > 0.1, "bob heard \(resumed) after hold")
        print("bob hears: normal \(normal), alice muted \(muted), alice on hold \(held), resumed \(resumed)")
        alice.disconnect()
        await listener.stop()
    }

    @Test func pushedInviteIsAcceptedThroughHandleNotification() async throws {
        let relay = try PushRelay()
        let bed = try VoiceTestBed { $0.pushWebhookURL = relay.url }
        defer { Task { await bed.stop() } }
        Voice.pushProvider = "webhook"
        let device = Data([0xAB, 0xCD, 0x01])
        let bobToken = try bed.token("bob")
        try await Voice.register(accessToken: bobToken, deviceToken: device)

        // An invite arrives as a push; bob's app hands the payload to the SDK and accepts.
        let inbox = InviteInbox()
        let aliceEvents = CallEvents(), bobEvents = CallEvents()
        let alice = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
            $0.params = ["To": "bob", "Reason": "push"]
            $0.audioDevice = NullAudioDevice()
            $0.delegateQueue = bed.queue
        }, delegate: aliceEvents)
        let payload = try await relay.waitForPayload(type: "twilio.voice.call")
        #expect(payload["device_token"] as? String == "abcd01")
        #expect(Voice.handleNotification(payload, delegate: inbox, delegateQueue: bed.queue))
        #expect(!Voice.handleNotification(["aps": "alert"], delegate: inbox, delegateQueue: bed.queue))
        let invite = try await inbox.waitForInvite()
        #expect(invite.from == "client:alice")
        #expect(invite.customParameters["Reason"] == "push")
        let bob = invite.accept(options: AcceptOptions(callInvite: invite) {
            $0.audioDevice = NullAudioDevice()
            $0.delegateQueue = bed.queue
        }, delegate: bobEvents)
        try await aliceEvents.wait(for: "alice connected") { $0.contains(.connected) }
        try await bobEvents.wait(for: "bob connected") { $0.contains(.connected) }
        #expect(bob.sid == invite.callSid)
        alice.disconnect()
        try await bobEvents.wait(for: "bob disconnected") { $0.contains(.disconnected(nil)) }

        // A pushed invite rejected: the caller gets 31603.
        let second = CallEvents()
        _ = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
            $0.params = ["To": "bob"]
            $0.audioDevice = NullAudioDevice()
            $0.delegateQueue = bed.queue
        }, delegate: second)
        let again = try await relay.waitForPayload(type: "twilio.voice.call", skipping: 1)
        let rejecting = InviteInbox { $0.reject() }
        #expect(Voice.handleNotification(again, delegate: rejecting, delegateQueue: bed.queue))
        try await second.wait(for: "31603") { $0.contains(.failedToConnect(31603)) }

        // Unregistered, bob is offline.
        try await Voice.unregister(accessToken: bobToken, deviceToken: device)
        let third = CallEvents()
        _ = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
            $0.params = ["To": "bob"]
            $0.audioDevice = NullAudioDevice()
            $0.delegateQueue = bed.queue
        }, delegate: third)
        try await third.wait(for: "31480") { $0.contains(.failedToConnect(31480)) }
        await #expect(throws: ParleyError.self) { try await Voice.unregister(accessToken: bobToken, deviceToken: device) }
    }

    @Test func listenWithoutIncomingGrantThrows31403() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        do {
            _ = try await Voice.listen(accessToken: try bed.token("carol", incoming: false), delegate: InviteInbox())
            Issue.record("listen succeeded without incoming.allow")
        } catch {
            #expect((error as? ParleyError)?.code.rawValue == 31403)
        }
        do {
            _ = try await Voice.listen(accessToken: "not-a-token", delegate: InviteInbox())
            Issue.record("listen succeeded with a bad token")
        } catch {
            #expect((error as? ParleyError)?.code.rawValue == 20101)
        }
    }
}
}

/// Call messages received and acknowledged.
final class MessageInbox: CallMessageDelegate, Sendable {
    struct Snapshot {
        var received: [CallMessage] = []
        var sent: [String] = []
        var failed: [(String, Int)] = []
    }

    private let state = Mutex(Snapshot())
    var snapshot: Snapshot { state.withLock { $0 } }

    func messageReceived(for callSid: String, message: CallMessage) { state.withLock { $0.received.append(message) } }
    func messageSent(for callSid: String, voiceEventSid: String) { state.withLock { $0.sent.append(voiceEventSid) } }
    func messageFailed(for callSid: String, voiceEventSid: String, error: ParleyError) {
        state.withLock { $0.failed.append((voiceEventSid, error.code.rawValue)) }
    }

    func wait(_ predicate: (Snapshot) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !predicate(snapshot) {
            guard ContinuousClock.now < deadline else { throw TestTimeout(description: "message state \(snapshot)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// A push relay: the server's webhook provider POSTs each payload here.
final class PushRelay: Sendable {
    let server: HTTPServer
    private let bodies: Bodies

    /// Raw JSON bodies as received.
    final class Bodies: Sendable { let list = Mutex<[[UInt8]]>([]) }

    init() throws {
        let bodies = Bodies()
        self.bodies = bodies
        server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            bodies.list.withLock { $0.append(request.body) }
            return HTTPResponse(status: 200)
        }
        try server.start()
    }

    var url: String { "http://127.0.0.1:\(server.localPort)/push" }

    /// The payload of the `skipping + 1`-th push of `type`, as an app receives it.
    func waitForPayload(type: String, skipping: Int = 0) async throws -> [AnyHashable: Any] {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let matching = bodies.list.withLock { $0 }
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
                .filter { $0["twi_message_type"] as? String == type }
            if matching.count > skipping {
                var payload: [AnyHashable: Any] = [:]
                for (key, value) in matching[skipping] { payload[key] = value }
                return payload
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestTimeout(description: "no \(type) push")
    }
}
