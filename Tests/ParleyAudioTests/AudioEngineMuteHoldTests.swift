import AudioCore
import AudioDevices
import CallQuality
import Foundation
import ParleyAudio
import Testing

/// Mute sends silence with the stream's timing kept; hold sends nothing and plays silence.
@Suite struct AudioEngineMuteHoldTests {
    @Test func muteSendsSilenceAndKeepsPacketsFlowing() throws {
        let directory = try EngineAudio.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/bob.wav"
        let call = try EngineCall(
            aliceDevice: try ToneAudioDevice(frequency: 440, levelDBFS: -6, pacing: .manual),
            bobDevice: try FileAudioDevice(inputPath: nil, outputPath: output, pacing: .manual),
            alice: AudioEngineCallTests.configuration(ssrc: 1), bob: AudioEngineCallTests.configuration(ssrc: 2))
        try call.start()
        call.run(milliseconds: 1_000)
        let unmuted = call.alice.qualitySample()
        #expect(call.alice.statistics().local.inputLevel > 0.45)

        call.alice.isMuted = true
        call.run(milliseconds: 1_000)
        let muted = call.alice.qualitySample()
        let mutedStatistics = call.alice.statistics()
        let bobWhileMuted = call.bob.statistics().remote

        call.alice.isMuted = false
        call.run(milliseconds: 1_000)
        call.stop()

        // Packets keep flowing at 50 a second, timestamps 960 apart, all the way through.
        let sent = call.aliceSent.all
        #expect(sent.count == 150)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.timestamp &- $0.timestamp == 960 })
        #expect(unmuted.local.packets == 50 && muted.local.packets == 50)
        // The input level reads 0 while muted; the sample says so.
        #expect(mutedStatistics.local.isMuted && mutedStatistics.local.inputLevel == 0)
        #expect(muted.isInputMuted && !unmuted.isInputMuted)
        #expect(muted.local.audioLevel.mean == 0 && muted.local.audioLevel.count == 10)
        #expect((unmuted.local.audioLevel.mean ?? 0) > 0.45)
        #expect(bobWhileMuted.outputLevel < 0.01)

        // Bob hears the tone, then silence (after the jitter-buffer delay), then the tone again.
        let heard = try WAVFile(contentsOfFile: output).samples
        let before = EngineAudio.rms(heard, seconds: 0.3...0.95)
        let during = EngineAudio.rms(heard, seconds: 1.2...1.95)
        let after = EngineAudio.rms(heard, seconds: 2.3...2.95)
        print("engine mute: rms before \(before), muted \(during), after \(after)")
        #expect(before > 0.3 && after > 0.3)   // a −6 dBFS sine: RMS 0.354
        #expect(during < 0.001)
    }

    @Test func holdSendsNothingAndPlaysSilence() throws {
        let aliceDevice = try ToneAudioDevice(frequency: 440, levelDBFS: -6, pacing: .manual)
        let call = try EngineCall(
            aliceDevice: aliceDevice,
            bobDevice: try ToneAudioDevice(frequency: 660, levelDBFS: -6, pacing: .manual),
            alice: AudioEngineCallTests.configuration(ssrc: 1), bob: AudioEngineCallTests.configuration(ssrc: 2))
        try call.start()
        call.run(milliseconds: 500)
        let sentBeforeHold = call.aliceSent.count
        let heardBeforeHold = aliceDevice.renderedAudio.audibleBuffers

        call.alice.isOnHold = true
        call.run(milliseconds: 50)          // what was in flight and in the jitter buffer
        let audibleAtHold = aliceDevice.renderedAudio.audibleBuffers
        let receivedAtHold = call.alice.statistics().remote.packetsReceived
        call.run(milliseconds: 950)
        let onHold = call.alice.statistics()
        let sentDuringHold = call.aliceSent.count - sentBeforeHold
        let heardDuringHold = aliceDevice.renderedAudio.audibleBuffers - audibleAtHold

        call.alice.isOnHold = false
        call.run(milliseconds: 500)
        call.stop()

        // Alice heard Bob before the hold, nothing on hold though Bob's packets kept coming.
        #expect(heardBeforeHold > 30)
        #expect(heardDuringHold == 0)
        #expect(onHold.remote.packetsReceived - receivedAtHold >= 45)
        #expect(onHold.remote.outputLevel == 0 && onHold.local.isOnHold)
        // Alice sent nothing on hold; afterwards the stream resumes marked, its clock having run on.
        #expect(sentBeforeHold == 25 && sentDuringHold == 0)
        let sent = call.aliceSent.all
        let resumed = sent[sentBeforeHold]
        #expect(resumed.marker)
        #expect(resumed.sequenceNumber == sent[sentBeforeHold - 1].sequenceNumber &+ 1)
        #expect(resumed.timestamp &- sent[sentBeforeHold - 1].timestamp == 51 * 960)
        #expect(sent.count == 50)
        #expect(aliceDevice.renderedAudio.lastBufferRMS > 0.1)   // Bob is heard again
    }
}
