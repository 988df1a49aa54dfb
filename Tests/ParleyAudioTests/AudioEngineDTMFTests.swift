import AudioCore
import AudioDevices
import Foundation
import ParleyAudio
import Testing

/// `sendDigits` on Alice's engine, heard by Bob's: RFC 4733 telephone events reported to Bob's
/// delegate, or in-band tones found in Bob's playout by the Goertzel detector.
@Suite struct AudioEngineDTMFTests {
    @Test func telephoneEventsReachTheFarEndsDelegate() throws {
        let call = try EngineCall(
            aliceDevice: try ToneAudioDevice(frequency: 300, levelDBFS: -20, pacing: .manual),
            bobDevice: try FileAudioDevice(inputPath: nil, outputPath: nil, pacing: .manual),
            alice: AudioEngineCallTests.configuration(ssrc: 1, telephoneEvents: 126),
            bob: AudioEngineCallTests.configuration(ssrc: 2, telephoneEvents: 126))
        try call.start()
        call.run(milliseconds: 200)
        try call.alice.sendDigits("12#")
        #expect(call.alice.isSendingDigits)
        call.run(milliseconds: 1_000)
        #expect(!call.alice.isSendingDigits)
        let alice = call.alice.statistics(), bob = call.bob.statistics()
        call.stop()

        #expect(call.bobDigits.began == [.one, .two, .pound])
        #expect(call.bobDigits.ended == [.one, .two, .pound])
        let keys = call.bobDigits.all.compactMap { if case .ended(let key) = $0 { key } else { nil } }
        #expect(keys.allSatisfy { $0.endReceived && $0.durationMilliseconds >= 80 && $0.durationMilliseconds <= 120 })
        let events = call.aliceSent.all.filter(\.isTelephoneEvent)
        #expect(events.allSatisfy { $0.payloadType == 126 && $0.ssrc == 1 })
        #expect(alice.local.telephoneEventPacketsSent == events.count && events.count > 0)
        #expect(bob.remote.telephoneEventPacketsReceived == events.count)
        #expect(bob.remote.digitsReceived == 3)
        // Events share the audio's sequence numbers: they are not counted as lost audio.
        #expect(bob.remote.packetsReceived == alice.local.packetsSent)
        #expect(bob.remote.packetsLost == 0 && bob.remote.lossFraction == 0)
        // Audio resumes after the digits.
        #expect(call.aliceSent.all.suffix(10).allSatisfy { $0.payloadType == 111 })
    }

    @Test func inBandTonesWithoutTelephoneEvents() throws {
        let directory = try EngineAudio.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let silence = try EngineAudio.writeWAV([Int16](repeating: 0, count: 4_800), in: directory, name: "silence.wav")
        let output = directory + "/bob.wav"
        let call = try EngineCall(
            aliceDevice: try FileAudioDevice(inputPath: silence, outputPath: nil, looping: true, pacing: .manual),
            bobDevice: try FileAudioDevice(inputPath: nil, outputPath: output, pacing: .manual),
            alice: AudioEngineCallTests.configuration(ssrc: 1), bob: AudioEngineCallTests.configuration(ssrc: 2))
        try call.start()
        call.run(milliseconds: 100)
        try call.alice.sendDigits("159*")
        call.run(milliseconds: 1_000)
        call.stop()

        #expect(call.aliceSent.all.allSatisfy { !$0.isTelephoneEvent && $0.payloadType == 111 })
        #expect(call.bobDigits.all.isEmpty)
        var detector = DTMFDetector(sampleRate: 48_000)
        let detected = detector.process(try WAVFile(contentsOfFile: output).samples)
        #expect(detected.map(\.digit) == [.one, .five, .nine, .star])
    }

    @Test func invalidDigitsAreRefusedAndNothingIsQueued() throws {
        let engine = try AudioEngine(device: NullAudioDevice(),
                                     configuration: AudioEngineCallTests.configuration(ssrc: 1, telephoneEvents: 126))
        #expect(throws: DTMFDialStringError(character: "a", position: 2)) { try engine.sendDigits("12a3") }
        #expect(!engine.isSendingDigits)
        try engine.sendDigits("0123456789*#w")
        #expect(engine.isSendingDigits)
    }
}
