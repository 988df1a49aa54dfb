import AudioDevices
import Foundation
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization
import Testing
@testable import ParleyVoice

/// The SDK holds delegates weakly (as Twilio's and LiveKit's do), runs callbacks on a queue that
/// something runs when the app names none, and routes signaling by call.
extension VoiceSDKTests {
    @Suite struct VoiceDelegateTests {
        /// Bob answers every invite with a silent device.
        static func answering(_ bed: VoiceTestBed) -> InviteInbox {
            InviteInbox { invite in
                let options = AcceptOptions(callInvite: invite) {
                    $0.audioDevice = NullAudioDevice()
                    $0.delegateQueue = bed.queue
                }
                Task { _ = try? await invite.accept(options: options) }
            }
        }

        @Test func aCallDoesNotKeepItsDelegatesAliveAndGoesOnWithoutThem() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let inbox = Self.answering(bed)
            let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: bed.queue)
            let token = try bed.token("alice")
            weak var callDelegate: CallEvents?
            weak var messageDelegate: MessageRecorder?
            let call: Call = {
                let events = CallEvents(), messages = MessageRecorder()
                (callDelegate, messageDelegate) = (events, messages)
                return Voice.connect(options: ConnectOptions(accessToken: token) {
                    $0.params = ["To": "bob"]
                    $0.audioDevice = NullAudioDevice()
                    $0.callMessageDelegate = messages
                    $0.delegateQueue = bed.queue
                }, delegate: events)
            }()
            #expect(callDelegate == nil && messageDelegate == nil)
            #expect(call.delegate == nil && call.options.callMessageDelegate == nil)
            try await call.waitUntilConnected()  // the call goes on, telling nobody
            call.disconnect()
            try await Self.waitUntil { call.state == .disconnected }
            await listener.stop()
            withExtendedLifetime(inbox) {}
        }

        @Test func listenersAndPreflightTestsHoldTheirDelegatesWeakly() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let token = try bed.token("bob")
            weak var inbox: InviteInbox?
            let listener = try await {
                let delegate = InviteInbox()
                inbox = delegate
                return try await Voice.listen(accessToken: token, delegate: delegate, delegateQueue: bed.queue)
            }()
            #expect(inbox == nil && listener.delegate == nil)
            #expect(listener.isListening)
            await listener.stop()

            weak var preflightDelegate: PreflightEvents?
            let test: PreflightTest = {
                let events = PreflightEvents()
                preflightDelegate = events
                return PreflightTest(options: PreflightOptions(accessToken: token), delegate: events)
            }()
            #expect(preflightDelegate == nil && test.delegate == nil)
        }

        /// Nothing runs Linux's main queue unless the app does: there the default is the SDK's own
        /// serial queue, and callbacks arrive on it.
        @Test(.enabled(if: DelegateQueue.default !== DispatchQueue.main, "the main queue on Apple platforms"))
        func callbacksWithoutADelegateQueueArriveOnTheSDKsQueue() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let key = DispatchSpecificKey<String>()
            DelegateQueue.default.setSpecific(key: key, value: "sdk")
            defer { DelegateQueue.default.setSpecific(key: key, value: nil) }
            let probe = QueueProbe(key: key)
            let call = Voice.connect(accessToken: "not-a-token", delegate: probe)  // the server refuses hello
            try await Self.waitUntil { probe.failure != nil }
            #expect(probe.failure?.queue == "sdk")
            #expect(probe.failure?.code == ParleyError.Code.accessTokenInvalid.rawValue)
            #expect(call.state == .disconnected)
        }

        @Test func jitterBufferBoundsAreDurationsTakenWithinTenSeconds() {
            let options = AudioOptions()
            #expect(options.minimumJitterBufferDelay == .milliseconds(20))
            #expect(options.maximumJitterBufferDelay == .milliseconds(400))
            let connect = ConnectOptions(accessToken: "t") { $0.audioOptions.maximumJitterBufferDelay = .milliseconds(250) }
            #expect(connect.media.audioOptions.maximumJitterBufferDelay == .milliseconds(250))
            #expect(CallMedia.jitterBufferMilliseconds(.microseconds(60_400)) == 60)
            #expect(CallMedia.jitterBufferMilliseconds(.seconds(-1)) == 0)
            #expect(CallMedia.jitterBufferMilliseconds(.seconds(Int64.max)) == 10_000)
        }

        @Test func signalingIsRoutedByCall() {
            func route(_ message: SignalingMessage, ref: String? = nil) -> SignalingRoute? {
                VoiceSignaling.route(SignalingEnvelope(ref: ref, message: message))
            }
            let sid = "CA" + String(repeating: "1", count: 32)
            #expect(route(.callCreated(CallCreated(callId: "call-1", callSid: sid)))
                    == SignalingRoute(key: "call-1", alias: sid))
            #expect(route(.answer(Answer(callSid: sid, sdp: "v=0"))) == SignalingRoute(key: sid))
            #expect(route(.error(SignalingErrorBody(code: 31486, message: "busy")), ref: "call-2")
                    == SignalingRoute(key: "call-2"))
            #expect(route(.error(SignalingErrorBody(code: 31486, message: "busy"))) == nil)
            #expect(route(.incoming(Incoming(callSid: sid, from: "client:alice", to: "bob"))) == nil)
            #expect(route(.listening) == nil)
        }

        static func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                guard ContinuousClock.now < deadline else { throw TestTimeout(description: "condition not met in \(timeout)") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}

/// Notes on which queue (by its `DispatchSpecificKey` value) a failure was reported.
final class QueueProbe: CallDelegate, Sendable {
    let key: DispatchSpecificKey<String>
    private let reported = Mutex<(queue: String?, code: Int)?>(nil)

    init(key: DispatchSpecificKey<String>) { self.key = key }

    var failure: (queue: String?, code: Int)? { reported.withLock { $0 } }

    func callDidConnect(_ call: Call) {}
    func callDidFailToConnect(_ call: Call, error: ParleyError) {
        let queue = DispatchQueue.getSpecific(key: key)
        reported.withLock { $0 = (queue, error.code.rawValue) }
    }
    func callDidDisconnect(_ call: Call, error: ParleyError?) {}
}

/// A call-message delegate that only exists (the weak-reference test needs one).
final class MessageRecorder: CallMessageDelegate, Sendable {
    func messageReceived(for callSid: String, message: ParleyVoice.CallMessage) {}
}
