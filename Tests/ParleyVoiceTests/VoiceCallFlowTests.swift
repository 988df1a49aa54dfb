import AudioCore
import AudioDevices
import Foundation
import ParleyAudio
import ParleyCore
import Synchronization
import ParleyTestSupport
import Testing
@testable import ParleyVoice

/// `Voice.connect` → ringing → connected → disconnect between two SDK clients in this process,
/// through a real server (signaling, TwiML-less direct dial, WebRTC media bridged on the server),
/// with audio both ways, DTMF, mute and hold; and the ways a call fails, each with its code.
extension VoiceSDKTests {
@Suite struct VoiceCallFlowTests {
    @Test func aliceCallsBobAndTheyHearEachOther() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let aliceWAV = VoiceTestBed.temporaryPath("alice"), bobWAV = VoiceTestBed.temporaryPath("bob")
        defer { try? FileManager.default.removeItem(atPath: aliceWAV); try? FileManager.default.removeItem(atPath: bobWAV) }
        let bobEvents = CallEvents(), aliceEvents = CallEvents()
        let bobDevice = try VoiceTestBed.toneDevice(400, recordingTo: bobWAV)
        let bobCall = Mutex<Call?>(nil)
        let queue = bed.queue
        let inbox = InviteInbox { invite in
            let options = AcceptOptions(callInvite: invite) {
                $0.audioDevice = bobDevice
                $0.delegateQueue = queue
            }
            bobCall.withLock { $0 = invite.accept(options: options, delegate: bobEvents) }
        }
        let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: queue)
        #expect(listener.identity == "bob")

        let started = ContinuousClock.now
        let call = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
            $0.params = ["To": "bob", "Topic": "billing"]
            $0.audioDevice = try? VoiceTestBed.toneDevice(700, recordingTo: aliceWAV)
            $0.delegateQueue = queue
        }, delegate: aliceEvents)
        #expect(call.state == .connecting)
        try await aliceEvents.wait(for: "connected") { $0.contains(.connected) }
        let setup = ContinuousClock.now - started
        #expect(aliceEvents.events.first == .ringing)
        #expect(call.state == .connected)
        #expect(call.sid?.hasPrefix("CA") == true)
        #expect(call.to == "bob")
        let invite = try #require(inbox.invites.first)
        #expect(invite.from == "client:alice")
        #expect(invite.customParameters["Topic"] == "billing")
        try await bobEvents.wait(for: "bob connected") { $0.contains(.connected) }
        let bob = try #require(bobCall.withLock { $0 })

        try await Task.sleep(for: .seconds(2))
        call.sendDigits("12#")
        try await Task.sleep(for: .seconds(1))
        let stats = await call.stats()
        let local = try #require(stats.localAudioTrackStats.first), remote = try #require(stats.remoteAudioTrackStats.first)
        #expect(local.codec == "opus")
        #expect(local.packetsSent > 100)
        #expect(remote.packetsReceived > 100)
        #expect(remote.packetsLost == 0)
        #expect(stats.iceCandidateStats.count == 2)
        let bobDigits = bob.snapshot.withLock { $0.media }?.audioEngine?.statistics().remote.digitsReceived
        #expect(bobDigits == 3)

        call.disconnect()
        try await aliceEvents.wait(for: "alice disconnected") { $0.contains(.disconnected(nil)) }
        try await bobEvents.wait(for: "bob disconnected") { $0.contains(.disconnected(nil)) }
        #expect(call.state == .disconnected)
        #expect(bob.state == .disconnected)
        // Once ended, stats() keeps the figures as they were at the end, on either side.
        let aliceFinal = await call.stats(), bobFinal = await bob.stats()
        #expect((aliceFinal.localAudioTrackStats.first?.packetsSent ?? 0) >= local.packetsSent)
        #expect((bobFinal.remoteAudioTrackStats.first?.packetsReceived ?? 0) > 100)
        #expect(bobFinal.iceCandidateStats.count == 2)
        await listener.stop()

        // What each side recorded is the other's tone.
        try await Task.sleep(for: .milliseconds(200))
        let heardByBob = try Self.dominantFrequency(bobWAV), heardByAlice = try Self.dominantFrequency(aliceWAV)
        #expect(abs(heardByBob - 700) < 15, "bob heard \(heardByBob) Hz")
        #expect(abs(heardByAlice - 400) < 15, "alice heard \(heardByAlice) Hz")
        print("connect → callDidConnect \(setup); bob heard \(heardByBob) Hz, alice heard \(heardByAlice) Hz")
    }

    @Test func rejectedCallFailsWith31603AndBusyWith31486() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        for (busy, code) in [(false, 31603), (true, 31486)] {
            let inbox = InviteInbox { invite in busy ? invite.rejectBusy() : invite.reject() }
            let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: bed.queue)
            let events = CallEvents()
            let call = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
                $0.params = ["To": "bob"]
                $0.audioDevice = NullAudioDevice()
                $0.delegateQueue = bed.queue
            }, delegate: events)
            try await events.wait(for: "failure") { $0.contains(.failedToConnect(code)) }
            #expect(call.state == .disconnected)
            await listener.stop()
        }
    }

    @Test func offlineCalleeGives31480AndAsyncConnectThrows() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let options = ConnectOptions(accessToken: try bed.token("alice")) {
            $0.params = ["To": "nobody"]
            $0.audioDevice = NullAudioDevice()
            $0.delegateQueue = bed.queue
        }
        await #expect(throws: ParleyError.self) { _ = try await Voice.connect(options: options) }
        do {
            _ = try await Voice.connect(options: options)
        } catch {
            #expect(error.code.rawValue == 31480)
        }
    }

    @Test func callerCancelBeforeAnswerReachesTheCallee() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let inbox = InviteInbox()
        let listener = try await Voice.listen(accessToken: try bed.token("bob"), delegate: inbox, delegateQueue: bed.queue)
        let events = CallEvents()
        let call = Voice.connect(options: ConnectOptions(accessToken: try bed.token("alice")) {
            $0.params = ["To": "bob"]
            $0.audioDevice = NullAudioDevice()
            $0.delegateQueue = bed.queue
        }, delegate: events)
        let invite = try await inbox.waitForInvite()
        call.disconnect()
        try await events.wait(for: "disconnect") { $0.contains(.disconnected(nil)) }
        let deadline = ContinuousClock.now + .seconds(5)
        while inbox.cancelled.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let cancelled = try #require(inbox.cancelled.first)
        #expect(cancelled.0.callSid == invite.callSid)
        #expect(cancelled.1 == 31487 || cancelled.1 == 31008)
        await listener.stop()
    }

    static func dominantFrequency(_ path: String) throws -> Double {
        let wav = try WAVFile(contentsOfFile: path)
        #expect(wav.sampleRate == 48_000)
        // A quarter second from the middle of the last second of the call.
        let samples = wav.samples.dropLast(wav.sampleRate / 2).suffix(wav.sampleRate / 4)
        return ToneAudio.dominantFrequency(samples.map(Double.init))
    }
}
}
