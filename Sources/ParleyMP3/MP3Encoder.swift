import CLame

/// Why an MP3 could not be made.
public struct MP3EncoderError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// 16-bit PCM to MP3 (MPEG Layer III) with LAME: constant bit rate, no ID3 tag and no Xing/LAME
/// header frame, so the stream is frames only and any decoder plays it from its first byte.
/// 8 kHz input gives MPEG-2.5 frames at 8 kHz (what telephony recordings are).
public enum MP3Encoder {
    /// PCM frames handed to LAME per call (bounds its output buffer).
    static let chunkFrames = 1152 * 16

    /// The bit rate (kbit/s) used when none is given: 32 per channel, which MPEG-2.5 at 8 kHz
    /// allows up to 64 (two channels).
    public static func defaultBitrate(channels: Int) -> Int { 32 * max(1, min(channels, 2)) }

    /// Encodes interleaved samples (`channels` of 1 or 2) at `sampleRate` (8–48 kHz).
    public static func encode(_ samples: [Int16], sampleRate: Int, channels: Int,
                              bitrate: Int? = nil) throws(MP3EncoderError) -> [UInt8] {
        guard channels == 1 || channels == 2 else { throw MP3EncoderError("MP3 carries 1 or 2 channels, not \(channels)") }
        guard (8_000...48_000).contains(sampleRate) else { throw MP3EncoderError("MP3 cannot carry \(sampleRate) Hz") }
        guard let lame = lame_init() else { throw MP3EncoderError("lame_init failed") }
        defer { lame_close(lame) }
        lame_set_num_channels(lame, Int32(channels))
        lame_set_in_samplerate(lame, Int32(sampleRate))
        lame_set_out_samplerate(lame, Int32(sampleRate))
        // Two recorded parties are two independent signals: no joint-stereo coding between them.
        lame_set_mode(lame, channels == 1 ? MONO : STEREO)
        lame_set_VBR(lame, vbr_off)
        let kbits = bitrate ?? defaultBitrate(channels: channels)
        lame_set_brate(lame, Int32(kbits))
        lame_set_quality(lame, 5)
        lame_set_bWriteVbrTag(lame, 0)
        // LAME moves a bit rate the sample rate cannot carry to one it can: refuse that instead.
        guard lame_init_params(lame) >= 0, lame_get_brate(lame) == Int32(kbits) else {
            throw MP3EncoderError("MP3 cannot carry \(sampleRate) Hz, \(channels) channels at \(kbits) kbit/s")
        }
        let frames = samples.count / channels
        // LAME's documented worst case for one call: 1.25 × samples + 7200 bytes.
        var buffer = [UInt8](repeating: 0, count: chunkFrames * 5 / 4 + 7200)
        var output: [UInt8] = []
        output.reserveCapacity((frames / sampleRate + 1) * kbits * 125)
        var start = 0
        while start < frames {
            let count = min(chunkFrames, frames - start)
            let written = samples.withUnsafeBufferPointer { pcm in
                buffer.withUnsafeMutableBufferPointer { out -> Int32 in
                    let base = pcm.baseAddress! + start * channels
                    let capacity = Int32(out.count)
                    if channels == 1 {
                        return lame_encode_buffer(lame, base, base, Int32(count), out.baseAddress, capacity)
                    }
                    return lame_encode_buffer_interleaved(lame, UnsafeMutablePointer(mutating: base), Int32(count),
                                                          out.baseAddress, capacity)
                }
            }
            guard written >= 0 else { throw MP3EncoderError("lame_encode_buffer failed (\(written))") }
            output += buffer[0..<Int(written)]
            start += count
        }
        let flushed = buffer.withUnsafeMutableBufferPointer { lame_encode_flush(lame, $0.baseAddress, Int32($0.count)) }
        guard flushed >= 0 else { throw MP3EncoderError("lame_encode_flush failed (\(flushed))") }
        output += buffer[0..<Int(flushed)]
        return output
    }

    /// LAME's version (`3.100`).
    public static var version: String { String(cString: get_lame_version()) }
}
