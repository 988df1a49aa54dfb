import AudioCore
import ParleyAudio
import RTP
import Testing

/// One tick's outcome, flattened for comparisons.
struct SentTick: Equatable, CustomStringConvertible {
    var time: Int64                 // ms
    var event: DTMFEventPacket?

    var description: String {
        guard let event else { return "\(time): audio" }
        return "\(time): \(event.digit) ts \(event.timestamp) d \(event.event.duration)"
            + (event.event.isEnd ? " E" : "") + (event.marker ? " M" : "") + (event.isRetransmission ? " R" : "")
    }
}

/// Drives a sender on a virtual 20 ms clock; the RTP timestamp advances 160 per tick (8 kHz).
func runSender(_ sender: inout DTMFSender, ticks: Int, startTimestamp: UInt32 = 1_000,
               interval: Int64 = 20, timestampStep: UInt32 = 160) -> [SentTick] {
    (0..<ticks).map { n in
        let time = Int64(n) * interval
        let timestamp = startTimestamp &+ UInt32(n) &* timestampStep
        switch sender.tick(at: time * 1_000, rtpTimestamp: timestamp) {
        case .audio: return SentTick(time: time, event: nil)
        case .event(let packet): return SentTick(time: time, event: packet)
        }
    }
}

@Suite struct DTMFSenderTests {
    @Test func oneKeyFollowsRFC4733() throws {
        var sender = DTMFSender()
        try sender.enqueue("7")
        let ticks = runSender(&sender, ticks: 12)
        let events = ticks.compactMap(\.event)
        // 100 ms at 8 kHz = 800 units: durations 160…800, the last with E, sent 3 times.
        #expect(events.map(\.event.duration) == [160, 320, 480, 640, 800, 800, 800])
        #expect(events.allSatisfy { $0.timestamp == 1_000 && $0.digit == .seven && $0.event.event == 7 })
        #expect(events.map(\.marker) == [true, false, false, false, false, false, false])
        #expect(events.map(\.event.isEnd) == [false, false, false, false, true, true, true])
        #expect(events.map(\.isRetransmission) == [false, false, false, false, false, true, true])
        #expect(events.allSatisfy { $0.event.volume == 10 })
        // Ticks 0–6 carry the event (5 + 2 copies); audio resumes afterwards.
        #expect(ticks.prefix(7).allSatisfy { $0.event != nil })
        #expect(ticks.dropFirst(7).allSatisfy { $0.event == nil })
        #expect(!sender.isActive)
    }

    @Test func gapBetweenKeysCountsFromTheToneEnd() throws {
        var sender = DTMFSender()
        try sender.enqueue("12")
        let ticks = runSender(&sender, ticks: 20)
        let starts = ticks.filter { $0.event?.marker == true }
        // Tone 1 ends at 100 ms; the gap lasts to 170 ms, so key 2 starts on the 180 ms tick.
        #expect(starts.map(\.time) == [0, 180])
        #expect(starts.map { $0.event!.timestamp } == [1_000, 1_000 + 9 * 160])
        #expect(ticks.filter { $0.time == 140 || $0.time == 160 }.allSatisfy { $0.event == nil })
    }

    @Test func pauseLetsAudioThroughForHalfASecond() throws {
        var sender = DTMFSender()
        try sender.enqueue("1w2")
        let ticks = runSender(&sender, ticks: 60)
        let starts = ticks.filter { $0.event?.marker == true }.map(\.time)
        // Key 1's gap ends at 170 ms; the pause starts on the 180 ms tick and lasts to 680 ms.
        #expect(starts == [0, 680])
        #expect(ticks.filter { $0.time >= 140 && $0.time < 680 }.allSatisfy { $0.event == nil })
    }

    @Test func invalidStringsQueueNothing() {
        var sender = DTMFSender()
        #expect(throws: DTMFDialStringError(character: "A", position: 2)) { try sender.enqueue("12A") }
        #expect(!sender.isActive)
        #expect(sender.tick(at: 0, rtpTimestamp: 0) == .audio)
    }

    @Test func clockRateAndToneLengthShapeTheDurations() throws {
        // telephone-event/48000 next to Opus, a 60 ms tone: 960 units per 20 ms tick.
        var sender = DTMFSender(configuration: .init(clockRate: 48_000, toneMilliseconds: 60))
        try sender.enqueue("#")
        let events = runSender(&sender, ticks: 8, timestampStep: 960).compactMap(\.event)
        #expect(events.map(\.event.duration) == [960, 1_920, 2_880, 2_880, 2_880])
        #expect(events.map(\.event.event) == [11, 11, 11, 11, 11])
    }

    @Test func configurationLimits() {
        #expect(DTMFSender.Configuration(toneMilliseconds: 10).toneMilliseconds == 40)
        // 0xFFFF units at 8 kHz is 8 191 ms; at 48 kHz 1 365 ms.
        #expect(DTMFSender.Configuration(toneMilliseconds: 60_000).toneDuration == 65_528)
        #expect(DTMFSender.Configuration(clockRate: 48_000, toneMilliseconds: 5_000).toneMilliseconds == 1_365)
        #expect(DTMFSender.Configuration(volume: 99).volume == 63)
    }

    @Test func toneShorterThanAPacketIntervalIsOneMarkedEndPacket() throws {
        var sender = DTMFSender(configuration: .init(packetIntervalMilliseconds: 60, toneMilliseconds: 40))
        try sender.enqueue("0")
        let events = runSender(&sender, ticks: 4, interval: 60, timestampStep: 480).compactMap(\.event)
        #expect(events.map(\.event.duration) == [320, 320, 320])
        #expect(events.map(\.marker) == [true, false, false])
        #expect(events.allSatisfy { $0.event.isEnd })
    }

    @Test func cancelEndsTheKeyInProgressProperly() throws {
        var sender = DTMFSender()
        try sender.enqueue("999")
        _ = runSender(&sender, ticks: 2)
        #expect(sender.isSendingEvent)
        sender.cancel()
        var following: [DTMFSendAction] = []
        for n in 2..<8 { following.append(sender.tick(at: Int64(n) * 20_000, rtpTimestamp: 1_000 + UInt32(n) * 160)) }
        let events = following.compactMap { action -> DTMFEventPacket? in
            if case .event(let packet) = action { return packet }
            return nil
        }
        #expect(events.map(\.event.duration) == [480, 480, 480])
        #expect(events.allSatisfy { $0.event.isEnd })
        #expect(following.dropFirst(3).allSatisfy { $0 == .audio })
        #expect(!sender.isActive)
    }

    @Test func timestampWrapKeepsDurationsRight() throws {
        var sender = DTMFSender()
        try sender.enqueue("5")
        let events = runSender(&sender, ticks: 7, startTimestamp: UInt32.max - 200).compactMap(\.event)
        #expect(events.map(\.event.duration) == [160, 320, 480, 640, 800, 800, 800])
        #expect(events.allSatisfy { $0.timestamp == UInt32.max - 200 })
    }

    @Test func payloadSerializesIntoACallerBuffer() throws {
        var sender = DTMFSender()
        try sender.enqueue("*")
        guard case .event(let packet) = sender.tick(at: 0, rtpTimestamp: 0) else {
            Issue.record("expected an event packet")
            return
        }
        var buffer = [UInt8](repeating: 0, count: 4)
        let written = try buffer.withUnsafeMutableBytes { try packet.serializePayload(into: $0) }
        #expect(written == 4)
        #expect(buffer == [10, 10, 0, 160])
    }
}
