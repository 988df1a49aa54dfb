import CallQuality
import Foundation
import Testing

private func sample(_ second: Int, rtt: Double? = 50, localJitter: Double? = 5, remoteJitter: Double? = 5,
                    localLoss: Double = 0, remoteLoss: Double = 0, codec: CodecName = .opus,
                    micLevel: Double? = 0.3, remotePackets: Int = 50, remoteLevel: Double? = 0.3, muted: Bool = false) -> CallQualitySample {
    CallQualitySample(time: Int64(second) * 1_000_000, rttMilliseconds: rtt,
                      local: StreamSample(packets: 50, lossPercent: localLoss, jitterMilliseconds: localJitter,
                                          audioLevel: micLevel.map { AudioLevelSummary(level: $0) } ?? AudioLevelSummary()),
                      remote: StreamSample(packets: remotePackets, lossPercent: remoteLoss, jitterMilliseconds: remoteJitter,
                                           audioLevel: remoteLevel.map { AudioLevelSummary(level: $0) } ?? AudioLevelSummary()),
                      codec: codec, isInputMuted: muted)
}

@Suite struct MediaMetricsMonitorTests {
    @Test func highJitterPerStreamTwoOfThree() throws {
        var monitor = MediaMetricsMonitor()
        #expect(monitor.update(with: sample(0, remoteJitter: 40)).isEmpty)
        #expect(monitor.update(with: sample(1, remoteJitter: 10)).isEmpty)
        let raised = monitor.update(with: sample(2, remoteJitter: 41))
        #expect(raised == [MediaMetricsEvent(type: .highJitter, active: true, value: 91.0 / 3, stream: .remote)])
        #expect(monitor.isActive(.highJitter, stream: .remote) && !monitor.isActive(.highJitter, stream: .local))
        // 10, 41, 10: two of three normal again.
        #expect(monitor.update(with: sample(3, remoteJitter: 10)).map(\.active) == [false])
    }

    @Test func highJitterClearsWhenTwoOfThreeAreNormal() throws {
        var monitor = MediaMetricsMonitor()
        _ = monitor.update(with: sample(0, localJitter: 50))
        let raised = monitor.update(with: sample(1, localJitter: 60))
        #expect(raised.map(\.stream) == [.local] && raised.first?.value == 55)
        #expect(monitor.update(with: sample(2, localJitter: 20)).isEmpty)   // 50, 60, 20: still 2 high
        let cleared = monitor.update(with: sample(3, localJitter: 20))     // 60, 20, 20: 2 normal
        #expect(cleared == [MediaMetricsEvent(type: .highJitter, active: false, value: 100.0 / 3, stream: .local)])
    }

    @Test func packetLossThresholdDependsOnTheCodec() {
        var opus = MediaMetricsMonitor(), pcmu = MediaMetricsMonitor()
        var opusEvents: [MediaMetricsEvent] = [], pcmuEvents: [MediaMetricsEvent] = []
        for i in 0..<3 {
            opusEvents += opus.update(with: sample(i, remoteLoss: 5, codec: .opus))
            pcmuEvents += pcmu.update(with: sample(i, remoteLoss: 5, codec: .pcmu))
        }
        #expect(opusEvents.isEmpty)
        #expect(pcmuEvents == [MediaMetricsEvent(type: .highPacketLoss, active: true, value: 5, stream: .remote)])
        for i in 3..<5 { opusEvents += opus.update(with: sample(i, remoteLoss: 12, codec: .opus)) }
        // (12 % loss also brings the MOS under 3.5: a low_mos event comes with it.)
        #expect(opusEvents.filter { $0.type == .highPacketLoss }
                == [MediaMetricsEvent(type: .highPacketLoss, active: true, value: 29.0 / 3, stream: .remote)])
        #expect(CodecName(rawValue: "PCMA").isG711)
    }

    @Test func rttAndMosAreCallWide() throws {
        var monitor = MediaMetricsMonitor()
        var events: [MediaMetricsEvent] = []
        for i in 0..<2 { events += monitor.update(with: sample(i, rtt: 1200)) }
        // RTT 1.2 s: L ≥ 1000 → R floored at 6.52 → MOS 1.00003.
        #expect(events.count == 2)
        let rtt = try #require(events.first { $0.type == .highRtt })
        #expect(rtt.stream == .none && rtt.value == 1200 && rtt.active && rtt.group == .network)
        let mos = try #require(events.first { $0.type == .lowMos })
        #expect(mos.stream == .none && abs(mos.value - 1.000031) < 1e-5)
    }

    @Test func noAudioReceivedAfterThreeSilentSeconds() {
        var monitor = MediaMetricsMonitor()
        #expect(monitor.update(with: sample(0, remotePackets: 0, remoteLevel: nil)).isEmpty)
        #expect(monitor.update(with: sample(1, remoteLevel: 0.00001)).isEmpty)  // −100 dB
        let raised = monitor.update(with: sample(2, remoteLevel: 0))
        #expect(raised == [MediaMetricsEvent(type: .noAudioReceived, active: true, value: -127, stream: .remote)])
        #expect(raised.first?.group == .audio)
        let cleared = monitor.update(with: sample(3, remoteLevel: 0.1))
        #expect(cleared == [MediaMetricsEvent(type: .noAudioReceived, active: false, value: -20, stream: .remote)])
        // A muted microphone is silent on purpose.
        for i in 4..<10 { #expect(monitor.update(with: sample(i, micLevel: 0, muted: true)).isEmpty) }
        var events: [MediaMetricsEvent] = []
        for i in 10..<13 { events += monitor.update(with: sample(i, micLevel: 0)) }
        #expect(events.map(\.stream) == [.local])
    }

    @Test func encodesToTheSeedsShape() throws {
        let event = MediaMetricsEvent(type: .highRtt, active: true, value: 450.5, stream: .none)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(event), as: UTF8.self)
        #expect(json == #"{"active":true,"desc":"high latency detected, can result in delay in audio","group":"network","level":"warning","stream":"None","type":"high_rtt","value":450.5}"#)
        #expect(try JSONDecoder().decode(MediaMetricsEvent.self, from: Data(json.utf8)) == event)
    }
}
