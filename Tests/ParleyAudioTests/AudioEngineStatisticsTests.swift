import AudioCore
import AudioDevices
import CallQuality
import ParleyAudio
import Testing

/// `statistics()` and `qualitySample(at:)` against the packets that actually passed, and the
/// quality monitors fed from the engine.
@Suite struct AudioEngineStatisticsTests {
    static func call() throws -> EngineCall {
        try EngineCall(
            aliceDevice: try ToneAudioDevice(frequency: 440, levelDBFS: -6, pacing: .manual),
            bobDevice: try ToneAudioDevice(frequency: 880, levelDBFS: -12, pacing: .manual),
            alice: AudioEngineCallTests.configuration(ssrc: 0xA), bob: AudioEngineCallTests.configuration(ssrc: 0xB))
    }

    @Test func countersMatchThePacketsThatPassed() throws {
        let call = try Self.call()
        try call.start()
        call.run(milliseconds: 2_000)
        call.bob.updateRoundTripTime(120)
        let alice = call.alice.statistics(), bob = call.bob.statistics()
        call.stop()

        let sent = call.aliceSent.all
        let bytes = sent.reduce(0) { $0 + $1.payload.count }
        #expect(alice.codec == .opus && alice.local.ssrc == 0xA)
        #expect(alice.local.packetsSent == sent.count && sent.count == 100)
        #expect(alice.local.bytesSent == bytes)
        #expect(bob.remote.packetsReceived == 100 && bob.remote.bytesReceived == bytes)
        #expect(bob.remote.packetsLost == 0 && bob.remote.lossFraction == 0 && bob.remote.packetsIgnored == 0)
        #expect(bob.remote.ssrc == 0xA)
        #expect(bob.remote.jitterMs < 1)          // packets arrive exactly on their clock
        #expect(abs(alice.local.inputLevel - 0.5) < 0.01)    // −6 dBFS peak
        #expect(abs(bob.local.inputLevel - 0.25) < 0.01)     // −12 dBFS peak
        #expect(bob.remote.outputLevel > 0.4 && alice.remote.outputLevel > 0.2)
        #expect(bob.remote.jitterBuffer.decodedFrames > 90)
        #expect(bob.remote.jitterBuffer.targetDelayMs >= 20 && bob.remote.jitterBuffer.targetDelayMs <= 40)
        // MOS from the RTT set: R = 94.768 − (120 + 2 × 0 + 10) / 40 = 91.518, MOS 4.374.
        #expect(bob.roundTripTimeMs == 120 && alice.roundTripTimeMs == nil && alice.mos == nil)
        let expected = MOS.calculate(rttMilliseconds: 120, jitterMilliseconds: bob.remote.jitterMs, lossPercent: 0)
        #expect(bob.mos == expected)
        #expect(abs((bob.mos ?? 0) - 4.374) < 0.002)
        let jb = bob.remote.jitterBuffer
        print("engine statistics: bob jitter \(bob.remote.jitterMs) ms, MOS \(bob.mos ?? 0),",
              "jitter-buffer current \(jb.currentDelayMs) ms target \(jb.targetDelayMs) ms")
    }

    @Test func qualitySamplesCoverTheIntervalSinceTheLastOne() throws {
        let call = try Self.call()
        try call.start()
        call.run(milliseconds: 1_000)
        let first = call.bob.qualitySample()
        call.run(milliseconds: 500)
        call.alice.reportRemoteLoss(fractionLost: 0, cumulativePacketsLost: 0, jitterMilliseconds: 2)
        let second = call.bob.qualitySample(at: 1_500_000)
        let aliceSample = call.alice.qualitySample()
        call.stop()

        #expect(first.time == 990_000 && second.time == 1_500_000)
        #expect(first.remote.packets == 50 && second.remote.packets == 25)
        #expect(first.local.packets == 50 && second.local.packets == 25)
        #expect(second.remote.bytes == call.aliceSent.all.suffix(25).reduce(0) { $0 + $1.payload.count })
        #expect(second.remote.lossPercent == 0 && second.remote.jitterMilliseconds != nil)
        #expect(first.codec == .opus && !first.isInputMuted)
        // One level reading per 100 ms of the interval.
        #expect(second.local.audioLevel.count == 5 && second.remote.audioLevel.count == 5)
        #expect(abs((second.local.audioLevel.mean ?? 0) - 0.25) < 0.01)
        #expect(first.rttMilliseconds == nil && first.mos == nil)
        // The far end's report reaches Alice's local stream.
        #expect(aliceSample.local.jitterMilliseconds == 2 && aliceSample.local.packets == 75)
    }

    @Test func highRoundTripTimeRaisesTheWarnings() throws {
        let call = try Self.call()
        var warnings = QualityWarningMonitor()
        var metrics = MediaMetricsMonitor()
        var raisedAt: Int?
        var metricsEvents: [MediaMetricsEvent] = []
        try call.start()
        // Samples every 500 ms of the call: RTT 100 ms, then 500 ms from the third on.
        for index in 0..<7 {
            call.run(milliseconds: 500)
            call.bob.updateRoundTripTime(index < 2 ? 100 : 500)
            let sample = call.bob.qualitySample()
            #expect(sample.mos != nil && sample.remote.packets == 25)
            if let change = warnings.update(with: sample), change.raised.contains(.highRtt), raisedAt == nil {
                raisedAt = index
                #expect(change.previous.isEmpty)
            }
            metricsEvents += metrics.update(with: sample)
            if index == 1 { #expect((sample.mos ?? 0) > 4.3) }
            if index == 6 { #expect((sample.mos ?? 5) < 3.6) }
        }
        call.stop()

        // Raised by the third sample over 400 ms (3 of the last 5).
        #expect(raisedAt == 4)
        #expect(warnings.warnings.contains(.highRtt) && !warnings.warnings.contains(.highJitter))
        #expect(!warnings.warnings.contains(.highPacketsLostFraction))
        #expect(metricsEvents.contains { $0.type == .highRtt && $0.active })
        #expect(metrics.isActive(.highRtt, stream: .none))
        #expect(!metrics.isActive(.noAudioReceived, stream: .remote))
    }
}
