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

/// The rest of the SDK's surface: the entry point's settings, a TwiML application's `<Dial
/// timeout>` running out (31408), codec preference, call-message rate limits, quality warnings.
extension VoiceSDKTests {
    @Suite struct VoiceSDKSurfaceTests {
        /// Records log records for the settings test.
        final class Recorder: Logger {
            let records = Mutex<[String]>([])
            func log(_ record: LogRecord) { records.withLock { $0.append("\(record.module.rawValue): \(record.message)") } }
        }

        @Test func entryPointSettings() async throws {
            #expect(!Voice.sdkVersion().isEmpty)
            let previousLevel = Voice.logLevel, previousLogger = Voice.logger
            defer { Voice.logLevel = previousLevel; Voice.logger = previousLogger }
            Voice.logLevel = .warning
            Voice.setLogLevel(.debug, module: .signaling)
            #expect(Voice.logLevel(for: .signaling) == .debug)
            #expect(Voice.logLevel(for: .webrtc) == .warning)
            let recorder = Recorder()
            Voice.logger = recorder
            Log.debug(.signaling, "probe")
            Log.debug(.webrtc, "hidden")
            #expect(recorder.records.withLock { $0 } == ["signaling: probe"])

            Voice.isInsightsEnabled = false
            #expect(!Voice.isInsightsEnabled)
            Voice.isInsightsEnabled = true
            Voice.servers = ["a": "http://127.0.0.1:1", "b": "http://127.0.0.1:2"]
            Voice.edge = "b"
            #expect(Voice.edge == "b")
            #expect(try VoiceSettings.server(for: nil) == "http://127.0.0.1:2")
            #expect(try VoiceSettings.server(for: "a") == "http://127.0.0.1:1")
            #expect(throws: ParleyError.self) { try VoiceSettings.server(for: "elsewhere") }

            // The audio device changes only while no call exists. Calls of earlier tests may still be
            // ending (their count comes back when this test is done).
            let earlier = VoiceSettings.shared.withLock { settings -> Int in
                defer { settings.liveCalls = 0 }
                return settings.liveCalls
            }
            defer { VoiceSettings.shared.withLock { $0.liveCalls += earlier } }
            let first = NullAudioDevice(), second = NullAudioDevice()
            Voice.audioDevice = first
            #expect(Voice.audioDevice === first)
            VoiceSettings.shared.withLock { $0.liveCalls += 1 }
            Voice.audioDevice = second
            #expect(Voice.audioDevice === first)
            VoiceSettings.shared.withLock { $0.liveCalls -= 1 }
            Voice.audioDevice = second
            #expect(Voice.audioDevice === second)
        }

        @Test func applicationDialTimeoutGives31408() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let credentials = bed.server.defaultCredentials
            let app = try TwiMLTestApp(authToken: credentials.account.authToken)
            defer { Task { await app.shutdown() } }
            app.set("/voice", #"<Response><Dial answerOnBridge="true" timeout="2"><Client>bob</Client></Dial></Response>"#)
            let application = try bed.server.store.createApplication(
                ApplicationDraft(friendlyName: "sdk test", voiceURL: app.baseURL + "/voice"), accountSid: credentials.account.sid)
            let inbox = InviteInbox()  // bob never answers
            let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: bed.queue)
            let events = CallEvents()
            _ = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice", outgoingApplication: application.sid)) {
                $0.params = ["To": "bob"]
                $0.audioDevice = NullAudioDevice()
                $0.delegateQueue = bed.queue
            }, delegate: events)
            let invite = try await inbox.waitForInvite()
            #expect(invite.uuid != UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
            try await events.wait(for: "31408") { $0.contains(.failedToConnect(31408)) }
            #expect(app.requests("/voice").first?.signatureValid == true)
            let deadline = ContinuousClock.now + .seconds(5)
            while inbox.cancelled.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(inbox.cancelled.first?.0.callSid == invite.callSid)
            await listener.stop()
        }

        /// Issue 13.4: an application that answers `<Hangup/>` connects the call, then ends it
        /// normally, as Twilio does: callDidConnect, then callDidDisconnect without an error.
        @Test func applicationHangupFirstConnectsThenDisconnects() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let credentials = bed.server.defaultCredentials
            let app = try TwiMLTestApp(authToken: credentials.account.authToken)
            defer { Task { await app.shutdown() } }
            app.set("/voice", "<Response><Hangup/></Response>")
            let application = try bed.server.store.createApplication(
                ApplicationDraft(friendlyName: "sdk hangup", voiceURL: app.baseURL + "/voice"), accountSid: credentials.account.sid)
            let events = CallEvents()
            let call = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice", outgoingApplication: application.sid)) {
                $0.audioDevice = NullAudioDevice()
                $0.delegateQueue = bed.queue
            }, delegate: events)
            try await events.wait(for: "disconnected") { $0.contains(.disconnected(nil)) }
            #expect(events.events.contains(.connected), "\(events.events)")
            #expect(!events.events.contains { if case .failedToConnect = $0 { true } else { false } })
            let sid = try #require(call.sid)
            #expect(try bed.server.store.call(sid: sid)?.status == .completed)
        }

        @Test func preferredCodecIsNegotiatedAndCarriesAudio() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let inbox = InviteInbox { invite in
                let options = AcceptOptions(callInvite: invite) {
                    $0.audioDevice = try? VoiceTestBed.toneDevice(400, recordingTo: VoiceTestBed.temporaryPath("codec-bob"))
                    $0.preferredAudioCodecs = [.pcmu]
                }
                Task { _ = try? await invite.accept(options: options) }
            }
            let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: bed.queue)
            let call = try await Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
                $0.params = ["To": "bob"]
                $0.preferredAudioCodecs = [.pcmu]
                $0.audioDevice = try? VoiceTestBed.toneDevice(700, recordingTo: VoiceTestBed.temporaryPath("codec-alice"))
                $0.delegateQueue = bed.queue
            })
            try await Task.sleep(for: .seconds(1))
            let reports = await withCheckedContinuation { done in call.getStats { done.resume(returning: $0) } }
            let remote = try #require(reports.first?.remoteAudioTrackStats.first)
            #expect(remote.codec == "pcmu")
            #expect(remote.packetsReceived > 30)
            #expect(remote.audioLevel > 0.1)
            call.disconnect()
            await listener.stop()
        }

        @Test func theEleventhMessageInAMinuteFailsWith31429() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let inbox = MessageInbox()
            let (alice, _, listener, _, _) = try await VoiceCallControlTests.connectedPair(bed, aliceMessages: inbox)
            for n in 0..<11 { _ = alice.sendMessage(CallMessage(content: "{\"n\": \(n)}")) }
            try await inbox.wait { $0.sent.count == 10 && $0.failed.count == 1 }
            #expect(inbox.snapshot.failed.first?.1 == 31429)
            alice.disconnect()
            await listener.stop()
        }

        @Test func silentMicrophoneRaisesConstantLevelWarnings() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            let silence = WAVFile(sampleRate: 48_000, channels: 1, samples: [Int16](repeating: 0, count: 48_000))
            let bobEvents = CallEvents()
            let inbox = InviteInbox { invite in
                _ = invite.accept(options: AcceptOptions(callInvite: invite) {
                    $0.audioDevice = try? VoiceTestBed.toneDevice(400, recordingTo: VoiceTestBed.temporaryPath("warn-bob"))
                    $0.delegateQueue = bed.queue
                }, delegate: bobEvents)
            }
            let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: bed.queue)
            let aliceEvents = CallEvents()
            let call = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
                $0.params = ["To": "bob"]
                $0.audioDevice = try? FileAudioDevice(input: silence, outputPath: nil, looping: true)
                $0.delegateQueue = bed.queue
            }, delegate: aliceEvents)
            try await aliceEvents.wait(for: "a warning", timeout: .seconds(20)) { events in
                events.contains { if case .warnings(let set) = $0 { set.contains(.constantAudioInputLevel) } else { false } }
            }
            call.disconnect()
            await listener.stop()
        }

        @Test func connectWithJustATokenHasNoOneToCall() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            Voice.audioDevice = NullAudioDevice()
            let events = CallEvents()
            let call = Voice.connect(accessToken: try bed.token("alice"), delegate: events)
            // No application and no To: the seed's "address incomplete" (the delegate is told on the
            // main queue; the test reads the same outcome through the async form).
            do {
                try await call.waitUntilConnected()
                Issue.record("a call with no To connected")
            } catch {
                #expect(error.code.rawValue == 31484)
            }
            #expect(call.state == .disconnected)
        }

        @Test func completionFormsAndTheAsyncAcceptAndACancelPush() async throws {
            let relay = try PushRelay()
            let bed = try VoiceTestBed { $0.pushWebhookURL = relay.url }
            defer { Task { await bed.stop() } }
            Voice.pushProvider = "webhook"
            let device = Data([0x42])
            let registered: ParleyError?? = await withCheckedContinuation { done in
                Voice.register(accessToken: (try? bed.token("dave")) ?? "", deviceToken: device) { done.resume(returning: $0) }
            }
            #expect(registered == .some(nil))

            // A cancel push: alice rings dave (push only) and hangs up.
            let events = CallEvents()
            let ringing = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
                $0.params = ["To": "dave"]
                $0.audioDevice = NullAudioDevice()
                $0.delegateQueue = bed.queue
            }, delegate: events)
            _ = try await relay.waitForPayload(type: "twilio.voice.call")
            ringing.disconnect()
            let cancel = try await relay.waitForPayload(type: "twilio.voice.cancel")
            let inbox = InviteInbox()
            #expect(Voice.handleNotification(cancel, delegate: inbox, delegateQueue: bed.queue))
            try await Task.sleep(for: .milliseconds(100))
            #expect(inbox.cancelled.first?.0.callSid != nil)
            #expect(inbox.cancelled.first?.1 == 31008)

            let unregistered: ParleyError?? = await withCheckedContinuation { done in
                Voice.unregister(accessToken: (try? bed.token("dave")) ?? "", deviceToken: device) { done.resume(returning: $0) }
            }
            #expect(unregistered == .some(nil))

            // listen's completion form, and an invite accepted with the async form.
            let erin = InviteInbox()
            let listener: Listener? = await withCheckedContinuation { done in
                Voice.listen(accessToken: (try? bed.token("erin")) ?? "", delegate: erin, delegateQueue: bed.queue) { listener, _ in
                    done.resume(returning: listener)
                }
            }
            let live = try #require(listener)
            let caller = CallEvents()
            _ = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
                $0.params = ["To": "erin"]
                $0.audioDevice = NullAudioDevice()
                $0.delegateQueue = bed.queue
            }, delegate: caller)
            let invite = try await erin.waitForInvite()
            let accepted = try await invite.accept(options: AcceptOptions(callInvite: invite) { $0.audioDevice = NullAudioDevice() })
            #expect(accepted.state == .connected)
            #expect(accepted.uuid == invite.uuid)
            try await caller.wait(for: "caller connected") { $0.contains(.connected) }
            accepted.disconnect()
            try await caller.wait(for: "caller disconnected") { $0.contains(.disconnected(nil)) }
            await live.stop()
        }
    }
}
