import Foundation
import Testing
import AudioCore
import ParleyAudio
import ParleyOpus
import RTP

/// `AudioSendStream`: framing, timestamps, markers, RED and FEC switching.
@Suite struct AudioSendStreamTests {
    struct Sent: Equatable {
        var payloadType: UInt8
        var timestamp: UInt32
        var marker: Bool
        var payload: [UInt8]
        var redundantBlocks: Int
    }

    /// Feeds `pcm` in buffers of `bufferFrames` device frames; returns what the stream emitted.
    static func feed(_ stream: AudioSendStream, _ pcm: [Int16], bufferFrames: Int) throws -> [Sent] {
        var sent: [Sent] = []
        let step = bufferFrames * stream.inputFormat.channels
        try pcm.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: step) {
                let buffer = UnsafeBufferPointer(rebasing: all[start..<min(start + step, all.count)])
                try stream.process(buffer) { packet in
                    sent.append(Sent(payloadType: packet.payloadType, timestamp: packet.timestamp, marker: packet.marker,
                                     payload: Array(packet.payload), redundantBlocks: packet.redundantBlocks))
                }
            }
        }
        return sent
    }

    static func speech(rate: Int, seconds: Double) -> [Int16] {
        CodecTestSignal.speechLike(rate: rate, frames: Int(Double(rate) * seconds))
    }

    @Test(arguments: [(44_100, 441), (48_000, 480), (48_000, 512), (44_100, 512), (16_000, 160)])
    func framesAndTimestampsForAnyDeviceBuffer(device: (rate: Int, buffer: Int)) throws {
        let start: UInt32 = .max - 2_000  // the timestamp wraps during the second
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(initialTimestamp: start),
                                         inputFormat: AudioFormat(sampleRate: device.rate, framesPerBuffer: device.buffer))
        let sent = try Self.feed(stream, Self.speech(rate: device.rate, seconds: 1), bufferFrames: device.buffer)
        #expect(sent.count == 50 || (device.rate != 48_000 && sent.count == 49), "\(sent.count) packets")
        for (i, packet) in sent.enumerated() {
            #expect(packet.timestamp == start &+ UInt32(960 * i))
            #expect(packet.payloadType == 111)
            #expect(packet.marker == (i == 0))
            #expect(packet.payload.withUnsafeBufferPointer { OpusPacket.samplesPerChannel(in: $0) } == 960)
        }
        #expect(stream.framesEncoded == sent.count && stream.packetsEmitted == sent.count)
        #expect(stream.payloadBytesEmitted == sent.reduce(0) { $0 + $1.payload.count })
        #expect(stream.nextFrameTimestamp == start &+ UInt32(960 * sent.count))
    }

    @Test(arguments: [(AudioCodecKind.pcmu, UInt8(0)), (.pcma, 8)])
    func g711FramesAt8kHz(codec: (kind: AudioCodecKind, pt: UInt8)) throws {
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: codec.kind),
                                         inputFormat: AudioFormat(sampleRate: 48_000))
        #expect(stream.clockRate == 8_000 && stream.frameSamples == 160)
        let tone = CodecTestSignal.sine(440, rate: 48_000, frames: 24_000)
        let sent = try Self.feed(stream, tone, bufferFrames: 480)
        #expect(sent.count == 25)
        #expect(sent.allSatisfy { $0.payload.count == 160 && $0.payloadType == codec.pt })
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.timestamp == $0.timestamp &+ 160 })
        let decoder = try G711AudioDecoder(kind: codec.kind)
        var pcm = [Int16](repeating: 0, count: 160)
        var decoded: [Int16] = []
        for packet in sent {
            _ = try packet.payload.withUnsafeBufferPointer { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            decoded += pcm
        }
        #expect(abs(CodecTestSignal.dominantFrequency(Array(decoded[800...]), rate: 8_000) - 440) <= 4)
    }

    @Test func captureTimestampCountsAccumulatedSamples() throws {
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: .pcmu, initialTimestamp: 1_000),
                                         inputFormat: AudioFormat(sampleRate: 8_000))
        _ = try Self.feed(stream, [Int16](repeating: 0, count: 100), bufferFrames: 100)
        #expect(stream.captureTimestamp == 1_100 && stream.nextFrameTimestamp == 1_000)
        _ = try Self.feed(stream, [Int16](repeating: 0, count: 100), bufferFrames: 100)
        #expect(stream.captureTimestamp == 1_200 && stream.nextFrameTimestamp == 1_160)
    }

    @Test func stereoCaptureIntoMonoAndMonoCaptureIntoStereo() throws {
        let left = CodecTestSignal.sine(440, frames: 48_000)
        let stereo = left.flatMap { [$0, $0] }
        let mono = try AudioSendStream(configuration: AudioSendStreamConfiguration(),
                                       inputFormat: AudioFormat(sampleRate: 48_000, channels: 2))
        let monoSent = try Self.feed(mono, stereo, bufferFrames: 480)
        #expect(monoSent.count == 50)
        #expect(monoSent.allSatisfy { p in p.payload.withUnsafeBufferPointer { OpusPacket.channels(in: $0) } == 1 })
        let wide = try AudioSendStream(configuration: AudioSendStreamConfiguration(channels: 2, bitrate: 64_000),
                                       inputFormat: AudioFormat(sampleRate: 44_100))
        let wideSent = try Self.feed(wide, CodecTestSignal.sine(440, rate: 44_100, frames: 44_100), bufferFrames: 441)
        #expect(wideSent.count >= 49)
        #expect(wideSent.allSatisfy { p in p.payload.withUnsafeBufferPointer { OpusPacket.channels(in: $0) } == 2 })
    }

    /// With DTX, silence stops the packets; the first packet after each gap is marked, and only those.
    @Test func dtxGapsAreMarked() throws {
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(dtx: true),
                                         inputFormat: AudioFormat(sampleRate: 48_000))
        let pcm = Self.speech(rate: 48_000, seconds: 0.5) + [Int16](repeating: 0, count: 72_000) + Self.speech(rate: 48_000, seconds: 0.5)
        let sent = try Self.feed(stream, pcm, bufferFrames: 480)
        #expect(stream.framesEncoded == 125)
        #expect(stream.framesSuppressed > 30 && sent.count == 125 - stream.framesSuppressed)
        #expect(sent.first?.marker == true)
        for (previous, packet) in zip(sent, sent.dropFirst()) {
            #expect(packet.marker == (packet.timestamp != previous.timestamp &+ 960))
        }
        let lastTimestamp = try #require(sent.last).timestamp
        #expect(lastTimestamp == 124 * 960)
    }

    @Test func pausedFramesAreCountedButNotSent() throws {
        let stream = try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: .pcma),
                                         inputFormat: AudioFormat(sampleRate: 8_000))
        let tone = CodecTestSignal.sine(440, rate: 8_000, frames: 1_600)
        var sent = try Self.feed(stream, tone, bufferFrames: 160)
        stream.isPaused = true
        sent += try Self.feed(stream, tone, bufferFrames: 160)
        stream.isPaused = false
        sent += try Self.feed(stream, tone, bufferFrames: 160)
        #expect(sent.count == 20 && stream.framesSuppressed == 10 && stream.framesEncoded == 30)
        #expect(sent.map(\.marker) == [true] + Array(repeating: false, count: 9) + [true] + Array(repeating: false, count: 9))
        #expect(sent[10].timestamp == 20 * 160)
    }
}
