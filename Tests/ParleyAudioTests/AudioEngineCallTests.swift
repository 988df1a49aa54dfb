import AudioCore
import AudioDevices
import Foundation
import NetworkConditioner
import ParleyAudio
import Testing

/// Two engines back to back on a virtual clock: Alice's file microphone → engine A → RTP →
/// (simulated network) → engine B → Bob's file speaker, read back and analysed.
@Suite struct AudioEngineCallTests {
    static func configuration(ssrc: UInt32, red: UInt8? = nil, telephoneEvents: UInt8? = nil) -> AudioEngineConfiguration {
        AudioEngineConfiguration(codec: .opus, redPayloadType: red, telephoneEventPayloadType: telephoneEvents,
                                 ssrc: ssrc, initialSequenceNumber: 65_500, initialTimestamp: 0xFFFF_0000)
    }

    @Test func toneCrossesTwoEnginesAfterTheJitterBufferDelay() throws {
        let directory = try EngineAudio.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = try EngineAudio.writeWAV(EngineAudio.tone(frequency: 440, seconds: 1), in: directory, name: "alice.wav")
        let output = directory + "/bob.wav"
        let call = try EngineCall(
            aliceDevice: try FileAudioDevice(inputPath: input, outputPath: nil, pacing: .manual),
            bobDevice: try FileAudioDevice(inputPath: nil, outputPath: output, pacing: .manual),
            alice: Self.configuration(ssrc: 0xA11CE), bob: Self.configuration(ssrc: 0xB0B))
        try call.start()
        call.run(milliseconds: 1_500)
        let alice = call.alice.statistics(), bob = call.bob.statistics()
        call.stop()

        // One packet per 20 ms of the 1 s input, sequence numbers wrapping past 65 535.
        let sent = call.aliceSent.all
        #expect(sent.count == 50)
        #expect(sent.map(\.sequenceNumber) == (0..<50).map { UInt16(truncatingIfNeeded: 65_500 + $0) })
        #expect(sent.allSatisfy { $0.ssrc == 0xA11CE && $0.payloadType == 111 })
        #expect(sent.first?.marker == true && sent.dropFirst().allSatisfy { !$0.marker })
        #expect(alice.local.packetsSent == 50)
        #expect(bob.remote.packetsReceived == 50 && bob.remote.packetsLost == 0)
        #expect(bob.remote.ssrc == 0xA11CE)
        // Bob's device has no microphone: his engine sends nothing.
        #expect(call.bobSent.count == 0 && bob.local.packetsSent == 0)

        let heard = try WAVFile(contentsOfFile: output)
        #expect(heard.sampleRate == 48_000 && heard.channels == 1)
        #expect(heard.frameCount == 150 * 480)
        let onset = try #require(EngineAudio.onsetMilliseconds(heard.samples))
        let frequency = EngineAudio.dominantFrequency(heard.samples, seconds: 0.3...0.6)
        let level = EngineAudio.rms(heard.samples, seconds: 0.3...0.9)
        print("engine call: onset \(onset) ms, \(frequency) Hz, rms \(level), jitter-buffer p50",
              bob.remote.jitterBuffer.jitterBufferDelayP50Ms, "ms, target", bob.remote.jitterBuffer.targetDelayMs, "ms")
        // The tone is there, after the jitter buffer's delay (initial target 40 ms, one 10 ms tick of transport).
        #expect(onset >= 20 && onset <= 120)
        #expect(abs(frequency - 440) <= 6)
        #expect(level > 0.25 && level < 0.45)   // a 0.5 sine has an RMS of 0.354
        // After the input ends, silence.
        #expect(EngineAudio.rms(heard.samples, seconds: 1.3...1.5) < 0.01)
    }

    @Test func redCarriesTheToneThroughTenPercentLoss() throws {
        let directory = try EngineAudio.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/bob.wav"
        let call = try EngineCall(
            aliceDevice: try ToneAudioDevice(frequency: 440, levelDBFS: -6, pacing: .manual),
            bobDevice: try FileAudioDevice(inputPath: nil, outputPath: output, pacing: .manual),
            alice: Self.configuration(ssrc: 1, red: 63), bob: Self.configuration(ssrc: 2, red: 63),
            network: NetworkConditions(loss: NetworkConditions.loss(percent: 10), delayMicroseconds: 20_000), seed: 8)
        try call.start()
        // RTCP every second: Bob's loss goes back to Alice, whose encoder switches FEC on.
        var reported = (lost: 0, received: 0)
        for _ in 0..<3 {
            call.run(milliseconds: 1_000)
            let remote = call.bob.statistics().remote
            let lost = remote.packetsLost - reported.lost, received = remote.packetsReceived - reported.received
            call.alice.reportRemoteLoss(fractionLost: UInt8(min(255, lost * 256 / max(lost + received, 1))),
                                        cumulativePacketsLost: Int64(remote.packetsLost))
            reported = (remote.packetsLost, remote.packetsReceived)
        }
        let alice = call.alice.statistics(), bob = call.bob.statistics()
        call.stop()

        let network = call.toBob.statistics
        let jb = bob.remote.jitterBuffer
        print("engine 10 % loss: dropped \(network.droppedByLoss)/\(network.submitted), lost \(bob.remote.packetsLost),",
              "RED recovered \(jb.redRecoveredFrames), FEC \(jb.fecRecoveredFrames), concealed \(jb.concealedSamples) samples")
        #expect(alice.local.packetsSent == 150 && network.submitted == 150)
        #expect(network.droppedByLoss >= 8 && network.droppedByLoss <= 25)
        // Losses show in Bob's counters (a loss after the last packet received is not yet known).
        #expect(bob.remote.packetsLost >= network.droppedByLoss - 2 && bob.remote.packetsLost <= network.droppedByLoss)
        #expect(bob.remote.packetsReceived == network.delivered)
        #expect(bob.remote.lossFraction > 0.04 && bob.remote.lossFraction < 0.18)
        // RED rebuilt the lost frames; little or nothing was concealed.
        #expect(jb.redRecoveredFrames >= network.droppedByLoss / 2)
        #expect(jb.concealedSamples <= 4 * 960)
        #expect(alice.local.isFECEnabled)
        #expect(alice.local.remoteFractionLost ?? 0 > 0)
        #expect(alice.local.remotePacketsLost == Int64(bob.remote.packetsLost))

        let heard = try WAVFile(contentsOfFile: output).samples
        #expect(abs(EngineAudio.dominantFrequency(heard, seconds: 1.0...1.3) - 440) <= 6)
        // Every 100 ms carries the tone (no hole left by a loss) once the jitter buffer has learnt,
        // from the first recoveries, to wait for RED copies (it starts at its 20 ms minimum).
        let quietest = stride(from: 1.0, to: 2.9, by: 0.1).map { EngineAudio.rms(heard, seconds: $0...($0 + 0.1)) }.min() ?? 0
        print("engine 10 % loss: quietest 100 ms rms \(quietest) (tone 0.354)")
        #expect(quietest > 0.2)
    }
}
