import AudioCore
import ParleyAudio
import ParleyCore
import RTP
import Testing

/// A deterministic decoder: a payload is [index high, index low, flags]. Decoding writes
/// 1000 + index into every sample (0 for the frames in `quiet`), FEC (flags bit 0 in the next
/// packet) writes 2000 + the lost frame's index, concealment writes -1; so the output shows
/// exactly what was played.
final class IndexDecoder: AudioDecoder {
    let kind: AudioCodecKind
    let sampleRate: Int
    let channels = 1
    let frame: Int
    /// Frames that decode to silence (a pause in the talk).
    var quiet = 0..<0

    init(kind: AudioCodecKind = .opus, frame: Int = 960) {
        self.kind = kind
        sampleRate = kind.clockRate
        self.frame = frame
    }

    static func payload(_ index: Int, fec: Bool = false) -> [UInt8] {
        [UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index), fec ? 1 : 0]
    }

    static func index(_ payload: UnsafeBufferPointer<UInt8>) -> Int { Int(payload[0]) << 8 | Int(payload[1]) }

    func frameSamples(in payload: UnsafeBufferPointer<UInt8>) -> Int? { payload.count == 3 ? frame : nil }

    func decode(_ payload: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        guard payload.count == 3 else { throw ParleyError(.mediaNoSupportedCodec, reason: "bad test payload") }
        let index = Self.index(payload)
        for i in 0..<frame { output[i] = quiet.contains(index) ? 0 : Int16(1_000 + index) }
        return frame
    }

    func conceal(samplesPerChannel: Int, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        for i in 0..<samplesPerChannel { output[i] = -1 }
        return samplesPerChannel
    }

    func recoverFromFEC(in nextPayload: UnsafeBufferPointer<UInt8>, samplesPerChannel: Int,
                        into output: UnsafeMutableBufferPointer<Int16>) -> Int? {
        guard nextPayload.count == 3, nextPayload[2] & 1 != 0 else { return nil }
        for i in 0..<samplesPerChannel { output[i] = Int16(2_000 + Self.index(nextPayload) - 1) }
        return samplesPerChannel
    }
}

/// Drives an `AudioReceiveStream` on a virtual clock: packets at their arrival times, 10 ms pulls.
struct ReceiveStreamDriver {
    struct Packet {
        var payloadType: UInt8 = 111
        var sequenceNumber: UInt16
        var timestamp: UInt32
        var marker = false
        var payload: [UInt8]
        var arrival: Int64
    }

    let stream: AudioReceiveStream
    var output: [Int16] = []
    var clock: Int64 = 0

    /// Pulls 10 ms buffers (of the stream's output format) until `end`, delivering `packets` on the way.
    mutating func run(_ packets: [Packet], until end: Int64) {
        let format = stream.configuration.outputFormat
        var buffer = [Int16](repeating: 0, count: format.samplesPerBuffer)
        var next = packets.sorted { $0.arrival < $1.arrival }[...]
        while clock < end {
            while let p = next.first, p.arrival <= clock {
                next.removeFirst()
                p.payload.withUnsafeBytes { bytes in
                    _ = stream.receive(payloadType: p.payloadType, sequenceNumber: p.sequenceNumber, timestamp: p.timestamp,
                                       ssrc: 0xC0FFEE, marker: p.marker, payload: bytes, at: p.arrival)
                }
            }
            for i in buffer.indices { buffer[i] = 12_345 }  // a value no decision writes
            buffer.withUnsafeMutableBufferPointer { stream.read(into: $0, at: clock) }
            output += buffer
            clock += 10_000
        }
    }

    /// The distinct values in order of appearance (runs collapsed), silence (0) left out.
    var runs: [Int] {
        var values: [Int] = []
        for s in output where s != 0 && Int(s) != values.last { values.append(Int(s)) }
        return values
    }
}

@Suite struct AudioReceiveStreamTests {
    static func packets(_ range: Range<Int>, frame: Int = 960, payloadType: UInt8 = 111,
                        payload: (Int) -> [UInt8] = { IndexDecoder.payload($0) },
                        delay: (Int) -> Int64 = { _ in 30_000 }) -> [ReceiveStreamDriver.Packet] {
        range.map { i in
            ReceiveStreamDriver.Packet(payloadType: payloadType, sequenceNumber: UInt16(i), timestamp: UInt32(5_000 + i * frame),
                                       payload: payload(i), arrival: Int64(i) * 20_000 + delay(i))
        }
    }

    static func stream(_ decoder: any AudioDecoder = IndexDecoder(), red: UInt8? = nil,
                       format: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1)) throws -> AudioReceiveStream {
        try AudioReceiveStream(decoder: decoder, configuration: AudioReceiveStreamConfiguration(
            payloadType: 111, redPayloadType: red, outputFormat: format))
    }

    @Test func framesPlayInOrderAndEveryReadIsFilled() throws {
        var driver = ReceiveStreamDriver(stream: try Self.stream())
        driver.run(Self.packets(0..<50), until: 1_200_000)
        #expect(driver.output.count == 120 * 480)
        #expect(!driver.output.contains(12_345))
        #expect(driver.runs == Array(1_000..<1_050) + [-1])  // the end of the stream is concealed
        let s = driver.stream.statistics
        #expect(s.jitterBuffer.decodedFrames == 50)
        // The target starts at the 20 ms minimum and the path delay is steady: nothing is stretched.
        #expect(s.jitterBuffer.accelerateCount == 0 && s.jitterBuffer.expandCount == 0)
        #expect(s.jitterBuffer.currentDelayMs >= 20 && s.jitterBuffer.currentDelayMs < 30)
    }

    /// The delay starts 40 ms above the target (a 60 ms initial target on a steady path): the
    /// excess waits for the 200 ms pause of frames 100..<110 and is taken out there, so no frame
    /// of talk is shortened.
    @Test func excessDelayIsTakenOutInAPauseNotInTalk() throws {
        let decoder = IndexDecoder()
        decoder.quiet = 100..<110
        let stream = try AudioReceiveStream(decoder: decoder, configuration: AudioReceiveStreamConfiguration(
            payloadType: 111, outputFormat: AudioFormat(sampleRate: 48_000, channels: 1), initialDelayMs: 60))
        var driver = ReceiveStreamDriver(stream: stream)
        driver.run(Self.packets(0..<200), until: 4_200_000)
        var lengths: [Int: Int] = [:]
        for s in driver.output where s >= 1_000 { lengths[Int(s) - 1_000, default: 0] += 1 }
        #expect(lengths.count == 190 && lengths.values.allSatisfy { $0 == 960 })
        let s = driver.stream.statistics.jitterBuffer
        #expect(s.accelerateCount > 0 && s.acceleratedSamples >= 960 && s.expandCount == 0)
        #expect(s.currentDelayMs < 32)
    }

    @Test func redPacketsAreSplitAndALostFrameIsRecovered() throws {
        var packets = Self.packets(0..<50, payloadType: 63) { i in
            let primary = REDEncodedBlock(payloadType: 111, data: IndexDecoder.payload(i))
            let previous = REDEncodedBlock(payloadType: 111, timestampOffset: 960, data: IndexDecoder.payload(i - 1))
            return (try? REDPayload.serialize(redundant: i > 0 ? [previous] : [], primary: primary)) ?? []
        }
        packets.remove(at: 20)
        var driver = ReceiveStreamDriver(stream: try Self.stream(red: 63))
        driver.run(packets, until: 1_200_000)
        #expect(driver.runs == Array(1_000..<1_050) + [-1])
        let s = driver.stream.statistics
        #expect(s.jitterBuffer.redRecoveredFrames == 1 && s.jitterBuffer.decodedFrames == 49)
        #expect(s.packetsReceived == 49 && s.packetsLost == 1)
    }

    @Test func rtpPacketViewsAreAccepted() throws {
        let stream = try Self.stream()
        let header: [UInt8] = [0x80, 0x80 | 111, 0x00, 0x07, 0, 0, 0x13, 0x88, 0, 0xC0, 0xFF, 0xEE]
        let bytes = header + IndexDecoder.payload(7)
        let result = try bytes.withUnsafeBytes { raw in stream.receive(try RTPPacketView(raw), at: 0) }
        #expect(result == .inserted)
        let other = [0x80, 0x00] + header.dropFirst(2) + IndexDecoder.payload(8)  // PT 0: not this stream's
        let ignored = try other.withUnsafeBytes { raw in stream.receive(try RTPPacketView(raw), at: 0) }
        #expect(ignored == nil)
        #expect(stream.statistics.packetsIgnored == 1 && stream.statistics.packetsReceived == 1)
        #expect(stream.statistics.ssrc == 0xC0FFEE)
    }

    @Test func fecRecoversALossAndConcealmentCoversWhenThereIsNone() throws {
        var packets = Self.packets(0..<50, payload: { IndexDecoder.payload($0, fec: $0 != 31) })
        packets.remove(at: 30)  // 31 carries no FEC: concealed
        packets.remove(at: 20)  // 21 carries FEC of 20
        var driver = ReceiveStreamDriver(stream: try Self.stream())
        driver.run(packets, until: 1_200_000)
        #expect(driver.runs == Array(1_000..<1_020) + [2_020] + Array(1_021..<1_030) + [-1] + Array(1_031..<1_050) + [-1])
        let s = driver.stream.statistics.jitterBuffer
        #expect(s.fecRecoveredFrames == 1 && s.concealedSamples >= 960 && s.concealmentEvents == 2)
    }

    @Test func g711RateIsResampledToTheDeviceAndMonoIsSpreadToStereo() throws {
        let decoder = IndexDecoder(kind: .pcmu, frame: 160)
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        var driver = ReceiveStreamDriver(stream: try Self.stream(decoder, format: format))
        driver.run(Self.packets(0..<50, frame: 160), until: 1_200_000)
        #expect(driver.output.count == 120 * 960)
        #expect(!driver.output.contains(12_345))
        let left = stride(from: 0, to: driver.output.count, by: 2).map { driver.output[$0] }
        let right = stride(from: 1, to: driver.output.count, by: 2).map { driver.output[$0] }
        #expect(left == right)
        // Each 20 ms frame's value comes out, in order, as a steady run once the resampler's
        // filter has settled (its ringing at the start and end of the stream is short).
        var steady: [Int] = []
        var run = 0
        for (i, s) in left.enumerated() {
            run = i > 0 && s == left[i - 1] ? run + 1 : 1
            if run == 100 { steady.append(Int(s)) }
        }
        #expect(steady.drop { $0 == 0 }.prefix(50) == ArraySlice(1_000..<1_050))
    }

    @Test func statisticsCountPacketsBytesLossJitterAndLevel() throws {
        var packets = Self.packets(0..<100, delay: { $0 % 2 == 0 ? 30_000 : 40_000 })
        for i in [10, 30, 50, 70, 90].reversed() { packets.remove(at: i) }
        var driver = ReceiveStreamDriver(stream: try Self.stream())
        driver.run(packets, until: 2_200_000)
        let s = driver.stream.statistics
        #expect(s.codec == .opus)
        #expect(s.packetsReceived == 95 && s.bytesReceived == 95 * 3)
        #expect(s.packetsLost == 5 && abs(s.lossFraction - 0.05) < 1e-9)
        // RFC 3550 A.8 with |D| of 10 ms (alternating 30/40 ms, and 20 ms across the gaps).
        #expect(s.jitterMs > 8 && s.jitterMs < 12)
        #expect(s.totalOutputDuration > 2.1)
        #expect(s.jitterBuffer.packetsReceived == 95)
        // The last 100 ms played concealment (-1): level 1/32767; earlier the frames' 1 0xx.
        #expect(s.outputLevel < 0.001)
        var mid = ReceiveStreamDriver(stream: try Self.stream())
        mid.run(packets, until: 1_000_000)
        let level = mid.stream.statistics.outputLevel
        #expect(level > 1_030.0 / 32_767 && level < 1_060.0 / 32_767)
    }
}
