import RTP
import Testing

/// RFC 4733 §2.3 telephone-event payload (Figure 1: event, E, R, volume, duration).
@Suite struct TelephoneEventTests {
    @Test func figure1LayoutBitByBit() throws {
        // Event 9, E=1, R=0, volume 10 (−10 dBm0), duration 1 600 (200 ms at 8 kHz):
        // 0x09 | 1 0 001010 | 0x06 0x40.
        let event = TelephoneEvent(event: 9, isEnd: true, volume: 10, duration: 1_600)
        #expect(event.serialized == [0x09, 0b1000_1010, 0x06, 0x40])
        #expect(try TelephoneEvent(parsing: [0x09, 0b1000_1010, 0x06, 0x40]) == event)
    }

    @Test(arguments: [
        ([0x00, 0x00, 0x00, 0x00] as [UInt8], TelephoneEvent(event: 0, isEnd: false, volume: 0, duration: 0)),
        ([0x0B, 0x3F, 0xFF, 0xFF], TelephoneEvent(event: 11, isEnd: false, volume: 63, duration: 0xFFFF)),
        ([0x05, 0x8A, 0x03, 0x20], TelephoneEvent(event: 5, isEnd: true, volume: 10, duration: 800)),
        ([0x0F, 0x40, 0x00, 0xA0], TelephoneEvent(event: 15, isEnd: false, volume: 0, duration: 160, reservedBit: true)),
        ([0xFF, 0xFF, 0x12, 0x34], TelephoneEvent(event: 255, isEnd: true, volume: 63, duration: 0x1234, reservedBit: true)),
    ])
    func parsesAndSerializesEveryField(bytes: [UInt8], event: TelephoneEvent) throws {
        let parsed = try TelephoneEvent(parsing: bytes)
        #expect(parsed == event)
        #expect(parsed.serialized == bytes)   // the R bit round-trips too
    }

    @Test func volumeIsClampedToSixBits() {
        var event = TelephoneEvent(event: 1, volume: 200, duration: 0)
        #expect(event.volume == 63)
        event.volume = 64
        #expect(event.volume == 63)
        #expect(event.serialized[1] == 0x3F)
    }

    @Test(arguments: [
        ([] as [UInt8], RTPError.truncated(needed: 4, available: 0)),
        ([0x01], .truncated(needed: 4, available: 1)),
        ([0x01, 0x02, 0x03], .truncated(needed: 4, available: 3)),
        ([0x01, 0x02, 0x03, 0x04, 0x05], .truncated(needed: 8, available: 5)),
        ([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07], .truncated(needed: 8, available: 7)),
    ])
    func refusesPayloadsThatAreNotWholeBlocks(bytes: [UInt8], error: RTPError) {
        #expect(throws: error) { try TelephoneEvent.parseAll(bytes) }
        #expect(throws: error) { try TelephoneEvent(parsing: bytes) }
        #expect(throws: error) { try bytes.withUnsafeBytes { raw in try TelephoneEvent.count(in: raw) } }
    }

    @Test func singleBlockParserReadsTheFirstOfWholeBlocks() throws {
        #expect(try TelephoneEvent(parsing: [0x01, 0x80, 0x00, 0xA0, 0x02, 0x00, 0x00, 0xA0])
                == TelephoneEvent(event: 1, isEnd: true, volume: 0, duration: 160))
        #expect(throws: RTPError.truncated(needed: 8, available: 6)) {
            try TelephoneEvent(parsing: [0x01, 0x80, 0x00, 0xA0, 0x02, 0x00])
        }
    }

    @Test func multipleEventsInOnePacket() throws {
        // §2.5.1.5: blocks follow each other in one payload; an ended "1" then a starting "2".
        let bytes: [UInt8] = [0x01, 0x8A, 0x03, 0x20, 0x02, 0x0A, 0x00, 0xA0]
        let events = try TelephoneEvent.parseAll(bytes)
        #expect(events == [TelephoneEvent(event: 1, isEnd: true, volume: 10, duration: 800),
                           TelephoneEvent(event: 2, isEnd: false, volume: 10, duration: 160)])
        try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Void in
            #expect(try TelephoneEvent.count(in: raw) == 2)
            #expect(try TelephoneEvent(parsing: raw, block: 1) == events[1])
            #expect(throws: RTPError.truncated(needed: 12, available: 8)) { try TelephoneEvent(parsing: raw, block: 2) }
            #expect(throws: RTPError.self) { try TelephoneEvent(parsing: raw, block: -1) }
            #expect(throws: RTPError.self) { try TelephoneEvent(parsing: raw, block: Int.max) }
        }
    }

    @Test func serializesIntoCallerBuffers() throws {
        let event = TelephoneEvent(event: 10, isEnd: true, volume: 7, duration: 480)
        var buffer = [UInt8](repeating: 0xEE, count: 6)
        let written = try buffer.withUnsafeMutableBytes { raw in try event.serialize(into: raw) }
        #expect(written == 4)
        #expect(buffer == [0x0A, 0x87, 0x01, 0xE0, 0xEE, 0xEE])
        var small = [UInt8](repeating: 0, count: 3)
        #expect(throws: RTPError.bufferTooSmall(needed: 4, available: 3)) {
            try small.withUnsafeMutableBytes { raw in try event.serialize(into: raw) }
        }
        var appended: [UInt8] = [0x99]
        event.serialize(into: &appended)
        #expect(appended == [0x99, 0x0A, 0x87, 0x01, 0xE0])
        #expect(TelephoneEvent.size == 4)
        #expect(event.description == "event 10 end volume -7 dBm0 duration 480")
    }
}
