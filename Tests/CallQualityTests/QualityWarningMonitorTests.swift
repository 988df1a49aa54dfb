import CallQuality
import Testing

/// A sample at second `second` with healthy figures unless overridden.
private func sample(_ second: Double, rtt: Double? = 50, jitter: Double? = 5, loss: Double = 0,
                    input: AudioLevelSummary = AudioLevelSummary(levels: [0.1, 0.3]),
                    output: AudioLevelSummary = AudioLevelSummary(levels: [0.2, 0.4]), muted: Bool = false,
                    mos: Double? = nil) -> CallQualitySample {
    var s = CallQualitySample(time: Int64(second * 1_000_000), rttMilliseconds: rtt,
                              local: StreamSample(packets: 50, audioLevel: input),
                              remote: StreamSample(packets: 50, lossPercent: loss, jitterMilliseconds: jitter, audioLevel: output),
                              isInputMuted: muted)
    if let mos { s.mos = mos }
    return s
}

@Suite struct QualityWarningMonitorTests {
    @Test func highRttNeedsThreeOfFiveAndClearsWhenNoneCross() throws {
        // (Any RTT over 400 ms also gives a MOS under 3.5: the MOS is pinned here to watch RTT alone.)
        var monitor = QualityWarningMonitor()
        let rtts: [Double] = [100, 500, 100, 500]
        for (i, rtt) in rtts.enumerated() { #expect(monitor.update(with: sample(Double(i), rtt: rtt, mos: 4)) == nil) }
        let change = monitor.update(with: sample(4, rtt: 450, mos: 4))
        let raised = try #require(change)
        #expect(raised.current == [.highRtt] && raised.previous.isEmpty && raised.raised == [.highRtt])
        // Back to normal: still 3, 2, 2, 1 high samples in the window, then none.
        for s in 5...8 { #expect(monitor.update(with: sample(Double(s), rtt: 80, mos: 4)) == nil) }
        let clearing = monitor.update(with: sample(9, rtt: 80, mos: 4))
        let cleared = try #require(clearing)
        #expect(cleared.current.isEmpty && cleared.previous == [.highRtt] && cleared.cleared == [.highRtt])
    }

    @Test func twoHighJitterSamplesOfFiveAreNotEnough() {
        var monitor = QualityWarningMonitor()
        for (i, jitter) in [40.0, 10, 40, 10, 10, 40].enumerated() {
            #expect(monitor.update(with: sample(Double(i), jitter: jitter)) == nil)
        }
        #expect(monitor.update(with: sample(6, jitter: 31))?.current == [.highJitter])  // 40, 10, 10, 40, 31: 3 of 5
    }

    @Test func warningStaysAtLeastFiveSeconds() {
        // Samples every 0.5 s: five normal samples come 2.5 s after the raise, too soon to clear.
        var monitor = QualityWarningMonitor()
        for i in 0..<3 { _ = monitor.update(with: sample(Double(i) * 0.5, jitter: 50)) }
        #expect(monitor.warnings == [.highJitter])
        var clearedAt: Double?
        for i in 3..<20 where clearedAt == nil {
            let t = Double(i) * 0.5
            if monitor.update(with: sample(t, jitter: 5))?.cleared == [.highJitter] { clearedAt = t }
        }
        #expect(clearedAt == 6.0)  // raised at 1.0 s, cleared at the first sample 5 s later
    }

    @Test func lowMosFromTheSampleScore() throws {
        var monitor = QualityWarningMonitor()
        var change: QualityWarningChange?
        for i in 0..<3 {
            var s = sample(Double(i))
            s.mos = 3.2
            change = monitor.update(with: s)
        }
        #expect(try #require(change).current == [.lowMos])
        // A sample's own MOS is Twilio's: RTT 50, jitter 5, no loss → 4.40.
        let mos = try #require(sample(0).mos)
        #expect(abs(mos - MOS.score(rttMilliseconds: 50, jitterMilliseconds: 5, lossPercent: 0)) < 1e-12)
    }

    @Test func packetLossAveragesSevenSamplesWithHysteresis() throws {
        var monitor = QualityWarningMonitor()
        for i in 0..<6 { #expect(monitor.update(with: sample(Double(i), loss: 5)) == nil) }  // fewer than 7: no decision
        #expect(monitor.update(with: sample(6, loss: 5))?.raised == [.highPacketsLostFraction])
        // Averages 30/7, 25/7, 20/7, 15/7, 10/7 (> 1 %: kept), then 5/7 ≤ 1 %: cleared.
        for i in 7..<12 { #expect(monitor.update(with: sample(Double(i), loss: 0)) == nil) }
        #expect(monitor.update(with: sample(12, loss: 0))?.cleared == [.highPacketsLostFraction])
        // 2 % average is neither raised nor cleared.
        for i in 13..<30 { #expect(monitor.update(with: sample(Double(i), loss: 2)) == nil) }
    }

    @Test func constantInputLevelIsRaisedAfterTenSamplesUnlessMuted() throws {
        var monitor = QualityWarningMonitor()
        let flat = AudioLevelSummary(levels: [0.25, 0.251, 0.249])
        for i in 0..<9 { #expect(monitor.update(with: sample(Double(i), input: flat)) == nil) }
        #expect(monitor.update(with: sample(9, input: flat))?.current == [.constantAudioInputLevel])
        // Slightly varying (deviation 0.02: between 1 % and 3 %): kept.
        let slight = AudioLevelSummary(levels: [0.23, 0.27])
        for i in 10..<25 { #expect(monitor.update(with: sample(Double(i), input: slight)) == nil) }
        // Speech again: cleared.
        #expect(monitor.update(with: sample(25, input: AudioLevelSummary(levels: [0.0, 0.6])))?.cleared == [.constantAudioInputLevel])

        // Muted: a constant (silent) microphone is not a warning.
        var muted = QualityWarningMonitor()
        for i in 0..<20 { #expect(muted.update(with: sample(Double(i), input: AudioLevelSummary(level: 0), muted: true)) == nil) }
        // Muting clears an input-level warning at once.
        for i in 0..<10 { _ = muted.update(with: sample(Double(20 + i), input: flat)) }
        #expect(muted.warnings == [.constantAudioInputLevel])
        #expect(muted.update(with: sample(30, input: flat, muted: true))?.cleared == [.constantAudioInputLevel])
    }

    @Test func constantOutputLevelAndSeveralWarningsTogether() throws {
        var monitor = QualityWarningMonitor()
        var last: QualityWarningChange?
        for i in 0..<10 {
            if let change = monitor.update(with: sample(Double(i), rtt: 900, jitter: 60, output: AudioLevelSummary(level: 0))) {
                last = change
            }
        }
        // RTT 900 and jitter 60 give MOS 1.78: low MOS too.
        #expect(try #require(last).current == [.highRtt, .highJitter, .lowMos, .constantAudioOutputLevel])
        #expect(try #require(last).previous == [.highRtt, .highJitter, .lowMos])
    }

    @Test func missingFiguresDecideNothing() {
        var monitor = QualityWarningMonitor()
        for i in 0..<10 { #expect(monitor.update(with: sample(Double(i), rtt: nil, jitter: nil)) == nil) }
        #expect(monitor.warnings.isEmpty)
        // Once known, a missing RTT reuses the last one (RTCP reports come every few seconds); the
        // window decides once it holds no gap.
        #expect(monitor.update(with: sample(10, rtt: 600, jitter: nil)) == nil)
        for i in 11..<14 { #expect(monitor.update(with: sample(Double(i), rtt: nil, jitter: nil)) == nil) }
        #expect(monitor.update(with: sample(14, rtt: nil, jitter: nil))?.current == [.highRtt])
    }

    @Test func rawValuesAreTwiliosNames() {
        #expect(QualityWarning.allCases.map(\.rawValue) == ["high-rtt", "high-jitter", "high-packets-lost-fraction", "low-mos",
                                                            "constant-audio-input-level", "constant-audio-output-level"])
    }
}
