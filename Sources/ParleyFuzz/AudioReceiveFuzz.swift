import ParleyAudio
import ParleyOpus

/// Feeds arbitrary packets from the network to the whole receive path: the bytes are cut into
/// packets (a 9-byte header of payload type choice, sequence, timestamp, flags, length, then the
/// payload), given to an `AudioReceiveStream` (Opus with RED, or PCMU) with arrival times from
/// the input, and the device reads 10 ms after each packet. Nothing may trap, and every read
/// must be filled. Also feeds each payload to Opus's packet inspection.
enum AudioReceiveFuzz {
    nonisolated(unsafe) static var output = [Int16](repeating: 0, count: 480)

    static func run(_ data: UnsafeRawBufferPointer) {
        guard data.count > 1 else { return }
        let opus = data[0] & 1 == 0
        let decoder: any AudioDecoder
        do {
            decoder = opus ? try OpusAudioDecoder() : try G711AudioDecoder(kind: .pcmu)
        } catch {
            preconditionFailure("decoder: \(error)")
        }
        guard let stream = try? AudioReceiveStream(
            decoder: decoder,
            configuration: AudioReceiveStreamConfiguration(payloadType: opus ? 111 : 0, redPayloadType: opus ? 63 : nil,
                                                          jitterBufferCapacity: 16)) else {
            preconditionFailure("receive stream")
        }
        var offset = 1, now: Int64 = 0
        while offset + 9 <= data.count {
            let h = UnsafeRawBufferPointer(rebasing: data[offset..<(offset + 9)])
            let payloadType: UInt8 = [111, 63, 0, 13][Int(h[0] & 3)]
            let sequence = UInt16(h[1]) << 8 | UInt16(h[2])
            let timestamp = UInt32(h[3]) << 24 | UInt32(h[4]) << 16 | UInt32(h[5]) << 8 | UInt32(h[6])
            let marker = h[7] & 0x80 != 0
            let ssrc = UInt32(h[7] & 1)
            now += Int64(h[7] & 0x7F) * 1_000
            let length = min(Int(h[8]) * 4, data.count - offset - 9)
            let payload = UnsafeRawBufferPointer(rebasing: data[(offset + 9)..<(offset + 9 + length)])
            let bytes = payload.assumingMemoryBound(to: UInt8.self)
            _ = OpusPacket.samplesPerChannel(in: bytes)
            _ = OpusPacket.mode(of: bytes)
            _ = OpusPacket.channels(in: bytes)
            _ = OpusPacket.hasFEC(bytes)
            stream.receive(payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc,
                           marker: marker, payload: payload, at: now)
            output.withUnsafeMutableBufferPointer { stream.read(into: $0, at: now) }
            offset += 9 + length
        }
        _ = stream.statistics
    }
}
