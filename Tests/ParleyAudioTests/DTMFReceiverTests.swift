import AudioCore
import ParleyAudio
import RTP
import Testing

/// A telephone-event packet as it arrives: timestamp, marker, payload, arrival time (ms).
struct ArrivingEvent {
    var timestamp: UInt32
    var marker = false
    var event: TelephoneEvent
    var at: Int64
}

/// The packets a sender produces for one key: updates every 20 ms, the end three times.
func keyPackets(_ digit: DTMFDigit, timestamp: UInt32, startingAt start: Int64, toneUnits: UInt16 = 800) -> [ArrivingEvent] {
    var packets: [ArrivingEvent] = []
    var duration: UInt16 = 160
    var time = start
    while true {
        let isEnd = duration >= toneUnits
        packets.append(ArrivingEvent(timestamp: timestamp, marker: packets.isEmpty,
                                     event: TelephoneEvent(event: digit.eventCode, isEnd: isEnd, duration: min(duration, toneUnits)),
                                     at: time))
        time += 20
        if isEnd { break }
        duration += 160
    }
    let end = packets[packets.count - 1]
    for copy in 1...2 {
        packets.append(ArrivingEvent(timestamp: end.timestamp, event: end.event, at: end.at + 20 * Int64(copy)))
    }
    return packets
}

/// Feeds packets in the given order and collects what the receiver reports.
func receive(_ packets: [ArrivingEvent], into receiver: inout DTMFReceiver, pollUntil: Int64? = nil) throws -> [DTMFReceiverEvent] {
    var reported: [DTMFReceiverEvent] = []
    for packet in packets {
        try receiver.receive(timestamp: packet.timestamp, marker: packet.marker, payload: packet.event.serialized,
                             at: packet.at * 1_000) { reported.append($0) }
    }
    if let pollUntil { receiver.poll(at: pollUntil * 1_000) { reported.append($0) } }
    return reported
}

/// `began`/`ended` as short strings: "+5", "-5:800E" (duration, E seen).
func summary(_ events: [DTMFReceiverEvent]) -> [String] {
    events.map { event in
        switch event {
        case .began(let key): "+\(key.digit)"
        case .ended(let key): "-\(key.digit):\(key.duration)\(key.endReceived ? "E" : "")"
        }
    }
}

@Suite struct DTMFReceiverTests {
    @Test func oneKeyIsReportedOnceDespiteThreeEndPackets() throws {
        var receiver = DTMFReceiver()
        let events = try receive(keyPackets(.five, timestamp: 4_000, startingAt: 0), into: &receiver, pollUntil: 2_000)
        #expect(summary(events) == ["+5", "-5:800E"])
        guard case .ended(let key) = events.last else { return }
        #expect(key.durationMilliseconds == 100 && key.timestamp == 4_000 && key.volume == 10)
    }

    @Test func duplicatesAndReorderingChangeNothing() throws {
        var receiver = DTMFReceiver()
        var packets = keyPackets(.one, timestamp: 100, startingAt: 0)
        packets = [packets[1], packets[0], packets[0], packets[3], packets[2], packets[4], packets[2], packets[6], packets[5]]
        #expect(summary(try receive(packets, into: &receiver, pollUntil: 1_000)) == ["+1", "-1:800E"])
    }

    @Test func endPacketBeforeUpdatesClosesOnceAndLateUpdatesAreIgnored() throws {
        var receiver = DTMFReceiver()
        let packets = keyPackets(.two, timestamp: 100, startingAt: 0)
        let reordered = [packets[0], packets[4], packets[1], packets[2], packets[3], packets[5], packets[6]]
        #expect(summary(try receive(reordered, into: &receiver)) == ["+2", "-2:800E"])
    }

    @Test func keyWhoseFirstPacketsWereLostIsStillReported() throws {
        var receiver = DTMFReceiver()
        let packets = Array(keyPackets(.three, timestamp: 100, startingAt: 0).dropFirst(3))
        #expect(summary(try receive(packets, into: &receiver)) == ["+3", "-3:800E"])
        // Only the end packets survived: began and ended at once.
        var second = DTMFReceiver()
        let onlyEnds = Array(keyPackets(.four, timestamp: 900, startingAt: 0).suffix(2))
        #expect(summary(try receive(onlyEnds, into: &second)) == ["+4", "-4:800E"])
    }

    @Test func keyWhoseEndPacketsWereAllLostEndsAfterTheTimeout() throws {
        var receiver = DTMFReceiver(timeoutMicroseconds: 250_000)
        let packets = keyPackets(.six, timestamp: 100, startingAt: 0).filter { !$0.event.isEnd }
        var events = try receive(packets, into: &receiver)
        #expect(summary(events) == ["+6"])   // reported at its start
        receiver.poll(at: 300_000) { events.append($0) }   // 240 ms after the last packet: still open
        #expect(events.count == 1 && receiver.currentDigit?.digit == .six)
        receiver.poll(at: 310_000) { events.append($0) }
        #expect(summary(events) == ["+6", "-6:640"])
        #expect(receiver.currentDigit == nil)
    }

    @Test func newTimestampWhileOneIsOpenClosesTheOldKey() throws {
        var receiver = DTMFReceiver()
        let first = keyPackets(.seven, timestamp: 100, startingAt: 0).prefix(2)   // its end never comes
        let second = keyPackets(.eight, timestamp: 100 + 1_440, startingAt: 180)
        let events = try receive(Array(first) + second, into: &receiver)
        #expect(summary(events) == ["+7", "-7:320", "+8", "-8:800E"])
    }

    @Test func sameKeyTwiceIsTwoEvents() throws {
        var receiver = DTMFReceiver()
        let packets = keyPackets(.nine, timestamp: 100, startingAt: 0) + keyPackets(.nine, timestamp: 1_540, startingAt: 180)
        #expect(summary(try receive(packets, into: &receiver)) == ["+9", "-9:800E", "+9", "-9:800E"])
    }

    @Test func lateKeyOlderThanTheLastOneIsReportedWhole() throws {
        var receiver = DTMFReceiver()
        let early = keyPackets(.one, timestamp: 100, startingAt: 0)
        let later = keyPackets(.two, timestamp: 1_540, startingAt: 180)
        // Every packet of "1" is held up until "2" is over.
        let events = try receive(later + early, into: &receiver)
        #expect(summary(events) == ["+2", "-2:800E", "+1", "-1:160"])
    }

    @Test func timestampWrapIsHandled() throws {
        var receiver = DTMFReceiver()
        let first = keyPackets(.star, timestamp: UInt32.max - 500, startingAt: 0)
        let second = keyPackets(.pound, timestamp: UInt32.max &+ 940, startingAt: 180)
        let events = try receive(first + second, into: &receiver)
        #expect(summary(events) == ["+*", "-*:800E", "+#", "-#:800E"])
    }

    @Test func longEventSegmentsAreOneKey() throws {
        // §2.5.1.3: a 10 s key at 8 kHz is 80 000 units: a segment of 0xFFFF, then one of 14 465.
        // (Only some of its updates are listed, so the timeout is raised above their spacing.)
        var receiver = DTMFReceiver(timeoutMicroseconds: 20_000_000)
        let packets = [
            ArrivingEvent(timestamp: 0, marker: true, event: .init(event: 0, duration: 160), at: 0),
            ArrivingEvent(timestamp: 0, event: .init(event: 0, duration: 0xFFFF), at: 8_190),
            ArrivingEvent(timestamp: 0xFFFF, event: .init(event: 0, duration: 160), at: 8_210),
            ArrivingEvent(timestamp: 0xFFFF, event: .init(event: 0, isEnd: true, duration: 14_465), at: 10_000),
            ArrivingEvent(timestamp: 0, event: .init(event: 0, duration: 0xFFFF), at: 10_005),   // late duplicate
        ]
        let events = try receive(packets, into: &receiver)
        #expect(summary(events) == ["+0", "-0:80000E"])
        guard case .ended(let key) = events.last else { return }
        #expect(key.durationMilliseconds == 10_000)
    }

    @Test func multipleEventsInOnePayload() throws {
        // §2.5.1.5: an ended "1" (800 units) followed by a starting "2" at timestamp + 800.
        var receiver = DTMFReceiver()
        var reported: [DTMFReceiverEvent] = []
        try receiver.receive(timestamp: 1_000, marker: true, payload: [0x01, 0x8A, 0x03, 0x20, 0x02, 0x0A, 0x00, 0xA0],
                             at: 0) { reported.append($0) }
        #expect(summary(reported) == ["+1", "-1:800E", "+2"])
        #expect(receiver.currentDigit?.timestamp == 1_800)
    }

    @Test func malformedAndNonDTMFPayloads() throws {
        var receiver = DTMFReceiver()
        var reported: [DTMFReceiverEvent] = []
        #expect(throws: RTPError.truncated(needed: 4, available: 3)) {
            try receiver.receive(timestamp: 0, marker: true, payload: [1, 2, 3], at: 0) { reported.append($0) }
        }
        // Event 32 (a fax tone, RFC 4734) is not a key.
        try receiver.receive(timestamp: 0, marker: true, payload: [32, 0x0A, 0x00, 0xA0], at: 0) { reported.append($0) }
        #expect(reported.isEmpty)
        #expect(receiver.currentDigit == nil)
    }

    @Test func finishAndReset() throws {
        var receiver = DTMFReceiver()
        var events = try receive(Array(keyPackets(.c, timestamp: 50, startingAt: 0).prefix(2)), into: &receiver)
        receiver.finish { events.append($0) }
        #expect(summary(events) == ["+C", "-C:320"])
        receiver.reset()
        // After a reset (new SSRC) the same timestamp is a new key.
        #expect(summary(try receive(keyPackets(.c, timestamp: 50, startingAt: 500), into: &receiver)) == ["+C", "-C:800E"])
    }

    @Test func senderToReceiverOverALossyPath() throws {
        // Everything the sender emits for "1#w9", with every third packet lost.
        var sender = DTMFSender()
        try sender.enqueue("1#w9")
        var receiver = DTMFReceiver()
        var reported: [DTMFReceiverEvent] = []
        var packetIndex = 0
        for n in 0..<80 {
            let now = Int64(n) * 20_000
            if case .event(let packet) = sender.tick(at: now, rtpTimestamp: UInt32(n) * 160) {
                packetIndex += 1
                if packetIndex % 3 == 0 { continue }
                try receiver.receive(timestamp: packet.timestamp, marker: packet.marker,
                                     payload: packet.event.serialized, at: now) { reported.append($0) }
            }
            receiver.poll(at: now) { reported.append($0) }
        }
        let began = reported.compactMap { event -> DTMFDigit? in
            if case .began(let key) = event { return key.digit }
            return nil
        }
        #expect(began == [.one, .pound, .nine])
        #expect(reported.filter { if case .ended = $0 { true } else { false } }.count == 3)
    }
}
