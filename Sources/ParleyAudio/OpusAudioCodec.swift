import ParleyCore
import ParleyOpus

/// `AudioEncoder` over libopus (RFC 7587): 48 kHz, mono or stereo. The underlying `OpusEncoder`
/// is exposed for runtime settings (bitrate, FEC, expected loss, DTX).
public final class OpusAudioEncoder: AudioEncoder {
    public let encoder: OpusEncoder
    public var kind: AudioCodecKind { .opus }
    public var sampleRate: Int { Int(encoder.sampleRate) }
    public var channels: Int { Int(encoder.channels) }
    /// Samples per channel in one frame.
    public var samplesPerFrame: Int { encoder.samplesPerFrame }

    public init(configuration: OpusEncoderConfiguration = OpusEncoderConfiguration()) throws(ParleyError) {
        encoder = try OpusEncoder(configuration: configuration)
    }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<UInt8>) throws(ParleyError) -> Int {
        try encoder.encode(pcm, into: output)
    }
}

/// `AudioDecoder` over libopus: decoding, the decoder's PLC, and recovery of a lost frame from the
/// LBRR data in the next packet (RFC 6716 §2.1.7).
public final class OpusAudioDecoder: AudioDecoder {
    public let decoder: OpusDecoder
    public var kind: AudioCodecKind { .opus }
    public var sampleRate: Int { Int(decoder.sampleRate) }
    public var channels: Int { Int(decoder.channels) }
    /// Concealment of a length that is not a multiple of 2.5 ms is made here, then trimmed.
    private var scratch: [Int16]
    private let step: Int

    public init(sampleRate: Int = 48_000, channels: Int = 1) throws(ParleyError) {
        decoder = try OpusDecoder(sampleRate: Int32(sampleRate), channels: Int32(channels))
        step = sampleRate / 400
        scratch = [Int16](repeating: 0, count: (sampleRate / 400 + sampleRate * 120 / 1000) * channels)
    }

    public func frameSamples(in payload: UnsafeBufferPointer<UInt8>) -> Int? {
        decoder.samplesPerChannel(in: payload)
    }

    public func decode(_ payload: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        guard !payload.isEmpty else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus: empty payload")
        }
        return try decoder.decode(payload, into: output)
    }

    /// The decoder's PLC, in chunks of at most 120 ms; a length that is not a multiple of 2.5 ms
    /// is concealed rounded up and trimmed. Returns samples per channel written (0 on failure).
    public func conceal(samplesPerChannel: Int, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let total = min(samplesPerChannel, output.count / channels)
        let maxChunk = sampleRate * 120 / 1000
        var done = 0
        while done < total {
            let want = min(total - done, maxChunk)
            let target = UnsafeMutableBufferPointer(rebasing: output[(done * channels)...])
            if want % step == 0 {
                guard let n = try? decoder.conceal(samplesPerChannel: want, into: target), n > 0 else { break }
                done += n
            } else {
                let rounded = (want / step + 1) * step
                let made = scratch.withUnsafeMutableBufferPointer { (try? decoder.conceal(samplesPerChannel: rounded, into: $0)) ?? 0 }
                guard made > 0 else { break }
                let n = min(made, want)
                for i in 0..<(n * channels) { target[i] = scratch[i] }
                done += n
            }
        }
        return done
    }

    /// Decodes the LBRR copy of the previous frame carried in `nextPayload`; nil when there is none
    /// (CELT packets, FEC off at the sender, or no LBRR in this packet). Call it before decoding
    /// `nextPayload` itself.
    public func recoverFromFEC(in nextPayload: UnsafeBufferPointer<UInt8>, samplesPerChannel: Int,
                               into output: UnsafeMutableBufferPointer<Int16>) -> Int? {
        guard OpusPacket.hasFEC(nextPayload), samplesPerChannel % step == 0 else { return nil }
        return try? decoder.decodeFEC(nextPayload, samplesPerChannel: samplesPerChannel, into: output)
    }
}
