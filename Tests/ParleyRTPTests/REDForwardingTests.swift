import ParleyRTP
import RTP
import Testing

/// RED across a forwarding track (RFC 2198): kept, taken off or added as the receiver negotiated,
/// and which redundant blocks stand for lost packets.
@Suite struct REDForwardingTests {
    func track(red: UInt8?) -> RTPForwardingTrack {
        var track = RTPForwardingTrack(ssrc: 9, kind: .audio, clockRate: 48_000, mediaPayloadType: 109,
                                       telephoneEventPayloadType: 101, initialSequence: 1, initialTimestamp: 0)
        track.setREDPayloadType(red)
        return track
    }

    func update(_ decision: RTPForwardingTrack.Decision) -> RTPHeaderUpdate? {
        if case .send(let update) = decision { return update }
        return nil
    }

    @Test func theReceiversNegotiationDecidesThePayload() throws {
        var plain = track(red: nil)
        let stripped = try #require(update(plain.forward(ssrc: 1, sequenceNumber: 1, timestamp: 0, marker: false,
                                                         kind: .redundantAudio, now: 0)))
        #expect(stripped.payloadType == 109 && stripped.payload == .redPrimaryOnly)
        var red = track(red: 96)
        let kept = try #require(update(red.forward(ssrc: 1, sequenceNumber: 1, timestamp: 0, marker: false,
                                                   kind: .redundantAudio, now: 0)))
        #expect(kept.payloadType == 96 && kept.payload == .renameREDBlocks(109))
        let wrapped = try #require(update(red.forward(ssrc: 1, sequenceNumber: 2, timestamp: 960, marker: false,
                                                      kind: .audio, now: 0.02)))
        #expect(wrapped.payloadType == 96 && wrapped.payload == .wrapInRED)
        #expect(red.play(samples: 960, now: 0.04).payload == .wrapInRED)
        let event = try #require(update(red.forward(ssrc: 1, sequenceNumber: 3, timestamp: 960, marker: true,
                                                    kind: .telephoneEvent, now: 0.06)))
        #expect(event.payloadType == 101 && event.payload == .unchanged)
        // Three clean reports: nothing to repeat, frames go out plain.
        for _ in 0..<3 { red.reportRemoteLoss(fractionLost: 0) }
        #expect(!red.wrapsInRED && red.red?.distance == 0)
        let clean = try #require(update(red.forward(ssrc: 1, sequenceNumber: 4, timestamp: 1_920, marker: false,
                                                    kind: .audio, now: 0.08)))
        #expect(clean.payloadType == 109 && clean.payload == .unchanged)
    }

    static func redPayload(blocks: [[UInt8]], step: UInt32) -> [UInt8] {
        var encoder = REDEncoder(payloadType: 63, distance: blocks.count - 1)
        var out = [UInt8](repeating: 0, count: REDEncoder.capacity(primaryCapacity: 64))
        var length = 0
        for (i, block) in blocks.enumerated() {
            length = block.withUnsafeBytes { primary in
                out.withUnsafeMutableBytes {
                    encoder.encode(primary: primary, timestamp: step * UInt32(i), blockPayloadType: 111, into: $0)!.length
                }
            }
        }
        return Array(out[0..<length])
    }

    @Test func blocksFillOnlyTheGapBeforeThePacket() throws {
        var recovery = REDLossRecovery()
        var recovered: [REDLossRecovery.Recovered] = []
        let payload = Self.redPayload(blocks: [[1], [2], [3]], step: 960)
        try payload.withUnsafeBytes { raw in
            let red = try REDPayloadView(raw)
            recovery.observe(sequenceNumber: 10)
            // 11 arrived: nothing lost before it.
            recovery.recover(sequenceNumber: 11, timestamp: 1_920, red: red, into: &recovered)
            #expect(recovered.isEmpty)
            // 14 after 11: 12 and 13 were lost; the two redundant blocks are exactly them.
            recovery.recover(sequenceNumber: 14, timestamp: 1_920, red: red, into: &recovered)
            #expect(recovered == [.init(block: 0, sequenceNumber: 12, timestamp: 0), .init(block: 1, sequenceNumber: 13, timestamp: 960)])
            // 18 after 14: 15–17 lost, but the blocks reach back two packets only.
            recovery.recover(sequenceNumber: 18, timestamp: 1_920, red: red, into: &recovered)
            #expect(recovered.map(\.sequenceNumber) == [16, 17])
            // A reordered older packet recovers nothing.
            recovery.recover(sequenceNumber: 16, timestamp: 1_920, red: red, into: &recovered)
            #expect(recovered.isEmpty)
        }
        // Offsets that are not whole frames back (a DTX gap) are not guessed at.
        let uneven = Self.redPayload(blocks: [[1], [2], [3]], step: 960)
        var edited = uneven
        edited[1] = 0x3F  // block 0's offset: now neither 1 920 nor a multiple of the newest block's
        try edited.withUnsafeBytes { raw in
            let red = try REDPayloadView(raw)
            recovery.recover(sequenceNumber: 30, timestamp: 1_920, red: red, into: &recovered)
            #expect(recovered.map(\.sequenceNumber) == [29])
        }
    }
}
