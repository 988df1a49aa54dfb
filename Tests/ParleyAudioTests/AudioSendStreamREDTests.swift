import Foundation
import Testing
import AudioCore
import ParleyAudio
import ParleyOpus
import RTP

/// RED (RFC 2198) and FEC on the send side.
@Suite struct AudioSendStreamREDTests {
    typealias Sent = AudioSendStreamTests.Sent

    /// The blocks of a RED payload: (pt, timestamp offset, data), oldest first, primary last.
    static func blocks(_ payload: [UInt8]) throws -> [(pt: UInt8, offset: UInt16, data: [UInt8])] {
        try payload.withUnsafeBytes { raw in
            let view = try REDPayloadView(raw)
            return view.map { ($0.payloadType, $0.timestampOffset, Array($0.data)) }
        }
    }

    @Test(arguments: [1, 2])
    func redRepeatsThePreviousFrames(distance: Int) throws {
        let stream = try AudioSendStream(
            configuration: AudioSendStreamConfiguration(redPayloadType: 63, redDistance: distance),
            inputFormat: AudioFormat(sampleRate: 48_000))
        let sent = try AudioSendStreamTests.feed(stream, AudioSendStreamTests.speech(rate: 48_000, seconds: 0.2), bufferFrames: 480)
        #expect(sent.count == 10)
        var primaries: [[UInt8]] = []
        for (i, packet) in sent.enumerated() {
            #expect(packet.payloadType == 63)
            let blocks = try Self.blocks(packet.payload)
            let redundant = min(i, distance)
            #expect(blocks.count == redundant + 1 && packet.redundantBlocks == redundant)
            #expect(blocks.allSatisfy { $0.pt == 111 })
            for (j, block) in blocks.dropLast().enumerated() {
                let age = redundant - j  // oldest first
                #expect(block.offset == UInt16(960 * age))
                #expect(block.data == primaries[i - age])
            }
            #expect(blocks.last?.offset == 0)
            primaries.append(blocks.last?.data ?? [])
        }
        // Byte layout of packet 2 (RFC 2198 §3): F=1 headers, then the F=0 primary header.
        let p = sent[2].payload
        if distance == 2 {
            #expect(p[0] == 0x80 | 111 && p[4] == 0x80 | 111 && p[8] == 111)
            #expect(UInt16(p[1]) << 6 | UInt16(p[2]) >> 2 == 1_920)
            #expect(Int(p[2] & 0x03) << 8 | Int(p[3]) == primaries[0].count)
            #expect(p.count == 9 + primaries[0].count + primaries[1].count + primaries[2].count)
        } else {
            #expect(p[0] == 0x80 | 111 && p[4] == 111 && p.count == 5 + primaries[1].count + primaries[2].count)
        }
    }

    /// After a short pause the older frames are still repeated; after one past the 14-bit offset
    /// (2^14 ticks, 2.048 s at 8 kHz) they are not.
    @Test func redDropsFramesTooOldForTheOffsetField() throws {
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: .pcmu, redPayloadType: 63),
                                         inputFormat: AudioFormat(sampleRate: 8_000))
        let tone = CodecTestSignal.sine(440, rate: 8_000, frames: 480)
        _ = try AudioSendStreamTests.feed(stream, tone, bufferFrames: 160)
        stream.isPaused = true
        _ = try AudioSendStreamTests.feed(stream, Array(tone[0..<320]), bufferFrames: 160)
        stream.isPaused = false
        let shortGap = try AudioSendStreamTests.feed(stream, Array(tone[0..<160]), bufferFrames: 160)
        let shortBlocks = try Self.blocks(shortGap[0].payload)
        // Sent at 160 and 320, paused at 480 and 640, resumed at 800.
        #expect(shortBlocks.map(\.offset) == [640, 480, 0] && shortBlocks.allSatisfy { $0.pt == 0 })
        #expect(shortGap[0].marker)

        // At 8 kHz 2^14 ticks is 2.048 s: pause 2.1 s.
        stream.isPaused = true
        _ = try AudioSendStreamTests.feed(stream, [Int16](repeating: 0, count: 16_800), bufferFrames: 160)
        stream.isPaused = false
        let longGap = try AudioSendStreamTests.feed(stream, Array(tone[0..<320]), bufferFrames: 160)
        #expect(longGap[0].redundantBlocks == 0 && longGap[1].redundantBlocks == 1)
    }

    /// A redundant block longer than the 10-bit length field (1 023 bytes) is left out.
    @Test func redDropsBlocksTooLongForTheLengthField() throws {
        let stream = try AudioSendStream(
            configuration: AudioSendStreamConfiguration(redPayloadType: 63, frameMilliseconds: 60, bitrate: 256_000),
            inputFormat: AudioFormat(sampleRate: 48_000))
        let sent = try AudioSendStreamTests.feed(stream, CodecTestSignal.chirp(from: 100, to: 20_000, frames: 48_000, amplitude: 12_000),
                                                 bufferFrames: 480)
        let primaries = try sent.map { try Self.blocks($0.payload).last?.data.count ?? 0 }
        #expect(primaries.dropLast().contains { $0 > 1_023 })
        for i in 1..<sent.count {
            let expected = [i >= 2 ? primaries[i - 2] : 2_000, primaries[i - 1]].filter { $0 <= 1_023 }.count
            #expect(sent[i].redundantBlocks == expected)
        }
    }

    /// The far end reports 20 % loss: FEC goes on at 20 % expected loss and the packets carry LBRR;
    /// three clean reports later it is off again and they do not.
    @Test func fecFollowsReportedLoss() throws {
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(),
                                         inputFormat: AudioFormat(sampleRate: 48_000))
        let opus = try #require(stream.opus)
        let speech = AudioSendStreamTests.speech(rate: 48_000, seconds: 1)
        func fecShare() throws -> Double {
            let sent = try AudioSendStreamTests.feed(stream, speech, bufferFrames: 480)
            return Double(sent.filter { p in p.payload.withUnsafeBufferPointer { OpusPacket.hasFEC($0) } }.count) / Double(sent.count)
        }
        #expect(!opus.inbandFEC)
        #expect(try fecShare() == 0)
        stream.reportRemoteLoss(fractionLost: 52)
        #expect(opus.inbandFEC && opus.expectedPacketLossPercent == 20 && stream.fec.isEnabled)
        #expect(try fecShare() > 0.5)
        for _ in 0..<3 { stream.reportRemoteLoss(fractionLost: 0) }
        #expect(!opus.inbandFEC && opus.expectedPacketLossPercent == 0)
        let after = try AudioSendStreamTests.feed(stream, speech, bufferFrames: 480).dropFirst(1)
        #expect(after.allSatisfy { p in !p.payload.withUnsafeBufferPointer { OpusPacket.hasFEC($0) } })
    }

    @Test func fecPolicyOffAndG711IgnoreReports() throws {
        let off = try AudioSendStream(configuration: AudioSendStreamConfiguration(fec: .off),
                                      inputFormat: AudioFormat(sampleRate: 48_000))
        off.reportRemoteLoss(fractionLost: 100)
        #expect(off.opus?.inbandFEC == false)
        let pcmu = try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: .pcmu),
                                       inputFormat: AudioFormat(sampleRate: 48_000))
        pcmu.reportRemoteLoss(fractionLost: 100)
        #expect(pcmu.opus == nil && !pcmu.fec.isEnabled)
    }

    @Test func rejectsBadConfigurations() {
        #expect(throws: (any Error).self) {
            try AudioSendStream(configuration: AudioSendStreamConfiguration(frameMilliseconds: 30), inputFormat: AudioFormat())
        }
        #expect(throws: (any Error).self) {
            try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: .pcma, channels: 2), inputFormat: AudioFormat())
        }
        #expect(throws: (any Error).self) {
            try AudioSendStream(configuration: AudioSendStreamConfiguration(), inputFormat: AudioFormat(channels: 3))
        }
    }
}
