import RTCP
import Testing

/// Transport-wide CC feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
@Suite struct TransportLayerCCTests {
    typealias Status = TransportLayerCC.PacketStatus

    /// §3.1.3 and §3.1.4 examples, checked by round-tripping each chunk inside a packet.
    @Test(arguments: [
        (UInt16(0x00DD), TransportLayerCC.Chunk.runLength(.notReceived, length: 221)),
        (0x6018, .runLength(.reserved, length: 24)),
        (0x9F1C, .oneBitVector([0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0].map { Status(rawValue: $0)! })),
        (0xCD50, .twoBitVector([.notReceived, .reserved, .receivedSmallDelta, .receivedSmallDelta,
                                .receivedSmallDelta, .notReceived, .notReceived])),
    ])
    func draftChunkExamples(raw: UInt16, chunk: TransportLayerCC.Chunk) throws {
        let bytes: [UInt8] = [0x8F, 0xCD, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0,
                              UInt8(raw >> 8), UInt8(raw & 0xFF), 0, 0]
        let fb = TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, packetStatusCount: 1,
                                  referenceTime: 0, feedbackPacketCount: 0, chunks: [chunk], receiveDeltas: [])
        #expect(fb.serialized == bytes)
        #expect(try TransportLayerCC(parsing: bytes) == fb)
    }

    /// Captured from Chrome: P bit set with a pad count of 1; one small delta of 148 × 250 µs.
    @Test func chromeFeedbackOnePacket() throws {
        let bytes: [UInt8] = [0xAF, 0xCD, 0x00, 0x05, 0xFA, 0x17, 0xFA, 0x17, 0x43, 0x03, 0x2F, 0xA0,
                              0x00, 0x99, 0x00, 0x01, 0x3D, 0xE8, 0x02, 0x17, 0x20, 0x01, 0x94, 0x01]
        let fb = try roundTrip(TransportLayerCC.self, bytes, exact: false)
        #expect(fb.senderSSRC == 4_195_875_351 && fb.mediaSSRC == 1_124_282_272)
        #expect(fb.baseSequenceNumber == 153 && fb.packetStatusCount == 1)
        #expect(fb.referenceTime == 4_057_090 && fb.feedbackPacketCount == 23)
        #expect(fb.chunks == [.runLength(.receivedSmallDelta, length: 1)])
        #expect(fb.receiveDeltas == [148])
        let results = fb.packetResults
        #expect(results.count == 1)
        #expect(results[0].sequenceNumber == 153 && results[0].receiveDelta == 148)
        #expect(results[0].arrivalTime == Int64(4_057_090) * 64_000 + 37_000)
    }

    /// Captured from Chrome: two 2-bit vectors (with reserved symbols), a small and a large delta.
    @Test func chromeFeedbackTwoBitVectors() throws {
        let bytes: [UInt8] = [0xAF, 0xCD, 0x00, 0x06, 0xFA, 0x17, 0xFA, 0x17, 0x19, 0x3D, 0xD8, 0xBB,
                              0x01, 0x74, 0x00, 0x0E, 0x45, 0xB1, 0x5A, 0x40, 0xD8, 0x00, 0xF0, 0xFF,
                              0xD0, 0x00, 0x00, 0x03]
        let fb = try roundTrip(TransportLayerCC.self, bytes, exact: false)
        #expect(fb.baseSequenceNumber == 372 && fb.packetStatusCount == 14 && fb.feedbackPacketCount == 64)
        #expect(fb.receiveDeltas == [208, 0])
        #expect(fb.packetResults.map(\.status) == [
            .receivedSmallDelta, .receivedLargeDelta, .notReceived, .notReceived, .notReceived, .notReceived,
            .notReceived, .reserved, .notReceived, .notReceived, .reserved, .reserved, .reserved, .reserved,
        ])
    }

    /// Building from arrival times, across the sequence-number wrap, with loss, reordering (a
    /// negative delta) and a long run; parsing it back recovers every arrival to within 125 µs.
    @Test func buildFromArrivalsRoundTrips() throws {
        var arrivals: [Int64?] = [1_000_000, nil, 1_000_250, 1_010_000, 999_000]
        arrivals += Array(repeating: nil, count: 20)
        arrivals += (0..<30).map { Int64(1_020_000 + $0 * 1_000) }
        arrivals += [1_200_000, nil, 1_200_100]
        let fb = try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 9, baseSequenceNumber: 65534,
                                      arrivals: arrivals)
        #expect(fb.referenceTime == 15)  // 1 000 000 µs / 64 ms
        #expect(fb.chunks == [
            .twoBitVector([.receivedSmallDelta, .notReceived, .receivedSmallDelta, .receivedSmallDelta,
                           .receivedLargeDelta, .notReceived, .notReceived]),
            .runLength(.notReceived, length: 18),
            .runLength(.receivedSmallDelta, length: 30),
            .twoBitVector([.receivedLargeDelta, .notReceived, .receivedSmallDelta, .notReceived, .notReceived,
                           .notReceived, .notReceived]),
        ])
        let parsed = try TransportLayerCC(parsing: fb.serialized)
        #expect(parsed == fb)
        let results = parsed.packetResults
        #expect(results.count == arrivals.count)
        #expect(results[0].sequenceNumber == 65534 && results[2].sequenceNumber == 0)
        for (result, arrival) in zip(results, arrivals) {
            if let arrival {
                let time = try #require(result.arrivalTime)
                #expect(abs(time - arrival) <= 125)
                #expect(result.status != .notReceived)
            } else {
                #expect(result.status == .notReceived && result.arrivalTime == nil)
            }
        }
        #expect(results[3].status == .receivedSmallDelta)  // 9.75 ms after its predecessor: 39 ticks
        #expect(results[4].status == .receivedLargeDelta)  // arrived before its predecessor: negative
        #expect(results[55].status == .receivedLargeDelta)  // 151 ms gap: 604 ticks
    }

    @Test func chunkEncodingChoices() {
        let small = Status.receivedSmallDelta
        #expect(TransportLayerCC.encodeChunks(Array(repeating: small, count: 100)) == [.runLength(small, length: 100)])
        #expect(TransportLayerCC.encodeChunks([small, .notReceived, small]) ==
                [.oneBitVector([small, .notReceived, small] + Array(repeating: .notReceived, count: 11))])
        #expect(TransportLayerCC.encodeChunks([.receivedLargeDelta, small]) ==
                [.twoBitVector([.receivedLargeDelta, small] + Array(repeating: .notReceived, count: 5))])
        #expect(TransportLayerCC.encodeChunks(Array(repeating: .receivedLargeDelta, count: 8)) ==
                [.runLength(.receivedLargeDelta, length: 8)])
        #expect(TransportLayerCC.encodeChunks(Array(repeating: .notReceived, count: 9000)) ==
                [.runLength(.notReceived, length: 8191), .runLength(.notReceived, length: 809)])
        #expect(TransportLayerCC.encodeChunks([]) == [])
    }

    @Test func builderRefusesUnencodableDeltas() {
        #expect(throws: RTCPError.self) {
            try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, baseSequenceNumber: 0,
                                 arrivals: [0, 9_000_000])
        }
        #expect(throws: RTCPError.self) {
            try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, baseSequenceNumber: 0,
                                 arrivals: Array(repeating: nil, count: 70_000))
        }
    }

    @Test func negativeReferenceTimeIsSigned24Bit() throws {
        let fb = TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, packetStatusCount: 0,
                                  referenceTime: -5, feedbackPacketCount: 0, chunks: [], receiveDeltas: [])
        #expect(Array(fb.serialized[16..<19]) == [0xFF, 0xFF, 0xFB])
        #expect(try TransportLayerCC(parsing: fb.serialized).referenceTime == -5)
    }
}

/// Builder property: pseudo-random arrival patterns survive build → serialize → parse.
@Suite struct TransportLayerCCBuilderPropertyTests {
    /// A fixed-seed xorshift generator so failures reproduce.
    struct XorShift: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    @Test func randomArrivalsRoundTrip() throws {
        var rng = XorShift(state: 0x9E37_79B9_7F4A_7C15)
        for _ in 0..<200 {
            let count = Int.random(in: 0...400, using: &rng)
            var time = Int64.random(in: 0...10_000_000_000, using: &rng)
            var arrivals: [Int64?] = []
            for _ in 0..<count {
                if Int.random(in: 0..<5, using: &rng) == 0 { arrivals.append(nil); continue }
                time += Int64.random(in: -20_000...100_000, using: &rng)
                arrivals.append(time)
            }
            let base = UInt16.random(in: 0...UInt16.max, using: &rng)
            let fb = try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0,
                                          baseSequenceNumber: base, arrivals: arrivals)
            let parsed = try TransportLayerCC(parsing: fb.serialized)
            #expect(parsed == fb)
            let results = parsed.packetResults
            #expect(results.count == count)
            for (i, (result, arrival)) in zip(results, arrivals).enumerated() {
                #expect(result.sequenceNumber == base &+ UInt16(i))
                #expect(result.arrivalTime.map { abs($0 - arrival!) <= 125 } ?? (arrival == nil))
            }
        }
    }
}
