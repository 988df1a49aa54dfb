import ParleyVPX
import Testing
import VideoCore
import VP8

/// libvpx end to end in-process: the test pattern encoded, packetized (RFC 7741), put back
/// together, decoded; the frame numbers and the picture quality survive.
@Suite struct VP8CodecTests {
    @Test func encodePacketizeReassembleDecode() throws {
        var pattern = TestPattern(width: 640, height: 360)
        let encoder = try VP8Encoder(width: 640, height: 360, bitrate: 800_000)
        let decoder = try VP8Decoder()
        var packetizer = VP8Packetizer(firstPictureID: 0x7FFE)  // wraps within the test
        var depacketizer = VP8Depacketizer()
        var sequence: UInt16 = 65_530
        var decoded: [(UInt32?, Double)] = []
        var bytes = 0, keyFrames = 0
        for index in 0..<30 {
            let frame = pattern.next()
            for encoded in try encoder.encode(frame, keyFrame: index == 15) {
                bytes += encoded.data.count
                if encoded.isKeyFrame { keyFrames += 1 }
                let payloads = packetizer.packetize(encoded.data, maxPayloadSize: 1000)
                for (i, payload) in payloads.enumerated() {
                    let assembled = try depacketizer.push(sequenceNumber: sequence, timestamp: encoded.timestamp,
                                                          marker: i == payloads.count - 1, payload: payload[...])
                    sequence &+= 1
                    guard let assembled else { continue }
                    #expect(assembled.data == encoded.data)
                    #expect(assembled.isKeyFrame == encoded.isKeyFrame)
                    if let picture = try decoder.decode(assembled.data, timestamp: assembled.timestamp) {
                        decoded.append((TestPattern.frameNumber(in: picture), picture.lumaPSNR(against: frame)))
                    }
                }
            }
        }
        print("VP8 640x360 30 frames: \(bytes) bytes (\(bytes * 8 / 1000) kbit over 1 s), \(keyFrames) key frames, "
              + "PSNR min \(decoded.map(\.1).min() ?? 0) dB")
        #expect(decoded.count == 30)
        #expect(decoded.map(\.0) == (0..<30).map { UInt32($0) }, "each decoded frame carries its own number")
        #expect(decoded.allSatisfy { $0.1 > 30 }, "luma PSNR above 30 dB")
        #expect(keyFrames == 2, "the first frame and the requested one")
        #expect(depacketizer.droppedFrames == 0)
    }

    @Test func aMissingPacketDropsItsFrame() throws {
        var packetizer = VP8Packetizer()
        var depacketizer = VP8Depacketizer()
        let frame = [UInt8](repeating: 0x33, count: 2500)
        let payloads = packetizer.packetize(frame, maxPayloadSize: 1000)
        #expect(payloads.count == 3)
        #expect(try depacketizer.push(sequenceNumber: 1, timestamp: 10, marker: false, payload: payloads[0][...]) == nil)
        #expect(try depacketizer.push(sequenceNumber: 3, timestamp: 10, marker: true, payload: payloads[2][...]) == nil)
        #expect(depacketizer.droppedFrames == 1)
        let next = packetizer.packetize([0x01, 0x02], maxPayloadSize: 1000)
        let whole = try depacketizer.push(sequenceNumber: 4, timestamp: 20, marker: true, payload: next[0][...])
        #expect(whole?.data == [0x01, 0x02] && whole?.pictureID == 1)
    }
}
