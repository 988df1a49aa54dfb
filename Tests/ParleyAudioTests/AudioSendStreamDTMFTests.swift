import AudioCore
import ParleyAudio
import Testing

/// Digits sent through `AudioSendStream`: RFC 4733 telephone events when negotiated, in-band
/// tones otherwise; each checked by the matching receiver (DTMFReceiver, Goertzel DTMFDetector).
@Suite struct AudioSendStreamDTMFTests {
    struct Sent {
        var payloadType: UInt8
        var timestamp: UInt32
        var marker: Bool
        var payload: [UInt8]
    }

    /// Feeds `seconds` of silence in 10 ms buffers and collects what the stream emits.
    static func run(_ stream: AudioSendStream, seconds: Double, rate: Int) throws -> [Sent] {
        var sent: [Sent] = []
        let buffer = [Int16](repeating: 0, count: rate / 100)
        for _ in 0..<Int(seconds * 100) {
            try buffer.withUnsafeBufferPointer { pcm in
                try stream.process(pcm) { sent.append(Sent(payloadType: $0.payloadType, timestamp: $0.timestamp,
                                                           marker: $0.marker, payload: Array($0.payload))) }
            }
        }
        return sent
    }

    @Test func digitsGoOutAsTelephoneEventsOnTheStreamClock() throws {
        let stream = try AudioSendStream(
            configuration: AudioSendStreamConfiguration(codec: .opus, telephoneEventPayloadType: 126),
            inputFormat: AudioFormat(sampleRate: 48_000))
        try stream.sendDigits("1w2#")
        #expect(stream.isSendingDigits)
        let sent = try Self.run(stream, seconds: 2, rate: 48_000)
        #expect(!stream.isSendingDigits)
        let events = sent.filter { $0.payloadType == 126 }
        let audio = sent.filter { $0.payloadType == 111 }
        // One packet per 20 ms frame in total: events replace audio frames.
        #expect(sent.count == 100)
        #expect(events.count > 0 && audio.count > 0)
        var receiver = DTMFReceiver(clockRate: 48_000)
        var digits: [DTMFDigit] = []
        for (i, packet) in events.enumerated() {
            try receiver.receive(timestamp: packet.timestamp, marker: packet.marker, payload: packet.payload,
                                 at: Int64(i) * 20_000) { event in
                if case .ended(let key) = event { digits.append(key.digit) }
            }
        }
        receiver.finish { if case .ended(let key) = $0 { digits.append(key.digit) } }
        #expect(digits == [.one, .two, .pound])
        // Three events, each marked once at its start (RFC 4733 §2.5.1.1).
        #expect(events.filter(\.marker).count == 3)
        // The first audio packet after an event is marked again (a new talkspurt).
        let firstEvent = try #require(sent.firstIndex { $0.payloadType == 126 })
        let resumed = try #require(sent[firstEvent...].firstIndex { $0.payloadType == 111 })
        #expect(sent[resumed].marker)
    }

    @Test func invalidDigitIsRefusedWithItsPosition() throws {
        let stream = try AudioSendStream(
            configuration: AudioSendStreamConfiguration(codec: .opus, telephoneEventPayloadType: 126),
            inputFormat: AudioFormat(sampleRate: 48_000))
        #expect(throws: DTMFDialStringError(character: "x", position: 2)) { try stream.sendDigits("12x4") }
        #expect(!stream.isSendingDigits)
    }

    @Test func withoutTelephoneEventDigitsAreInBandTones() throws {
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: .pcmu),
                                         inputFormat: AudioFormat(sampleRate: 8_000))
        try stream.sendDigits("*907")
        let sent = try Self.run(stream, seconds: 1.5, rate: 8_000)
        #expect(sent.allSatisfy { $0.payloadType == 0 })
        let decoder = try G711AudioDecoder(kind: .pcmu)
        var pcm: [Int16] = []
        var frame = [Int16](repeating: 0, count: 160)
        for packet in sent {
            let n = try packet.payload.withUnsafeBufferPointer { p in
                try frame.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) }
            }
            pcm += frame[0..<n]
        }
        var detector = DTMFDetector(sampleRate: 8_000)
        #expect(detector.process(pcm).map(\.digit) == [.star, .nine, .zero, .seven])
    }
}
