import ParleyAudio
import ParleyCore
import ParleyOpus

/// Encodes 20 ms frames of 48 kHz mono PCM for one playback: Opus at 48 kHz, or G.711 after a
/// 48 → 8 kHz speexdsp decimation. Buffers are allocated once; encoding allocates only the payload
/// array it returns.
final class FrameEncoder {
    let codec: CallAudioCodec
    private let opus: OpusAudioEncoder?
    private let g711: G711AudioEncoder?
    private let decimator: Resampler?
    private var narrow: [Int16]
    private var output: [UInt8]

    init(codec: CallAudioCodec, configuration: CallMediaPlayer.Configuration) throws(ParleyError) {
        self.codec = codec
        switch codec {
        case .opus:
            opus = try OpusAudioEncoder(configuration: OpusEncoderConfiguration(
                bitrate: configuration.opusBitrate, complexity: configuration.opusComplexity,
                application: configuration.opusApplication))
            g711 = nil
            decimator = nil
        case .pcmu, .pcma:
            opus = nil
            g711 = try G711AudioEncoder(kind: codec.kind)
            // Quality 3 is flat to 3.4 kHz, all G.711 carries, at half the cost of the default.
            decimator = try Resampler(inputRate: MediaAudio.sampleRate, outputRate: 8_000, channels: 1, quality: 3)
        }
        narrow = [Int16](repeating: 0, count: codec.samplesPerFrame)
        output = [UInt8](repeating: 0, count: 1_500)
    }

    /// Encodes one frame of `MediaAudio.frameSamples` samples; returns the payload, which holds
    /// `codec.samplesPerFrame` samples at the codec's clock rate.
    func encode(_ pcm: UnsafeBufferPointer<Int16>) throws(ParleyError) -> [UInt8] {
        let count: Int
        if let opus {
            count = try output.withUnsafeMutableBufferPointer { out throws(ParleyError) in try opus.encode(pcm, into: out) }
        } else if let g711, let decimator {
            count = try narrow.withUnsafeMutableBufferPointer { narrow throws(ParleyError) in
                let step = decimator.process(pcm, into: narrow)
                // speexdsp turns 960 samples into exactly 160 at an integer ratio; pad if it ever does not.
                if step.produced < narrow.count {
                    UnsafeMutableBufferPointer(rebasing: narrow[step.produced...]).update(repeating: 0)
                }
                return try output.withUnsafeMutableBufferPointer { out throws(ParleyError) in
                    try g711.encode(UnsafeBufferPointer(narrow), into: out)
                }
            }
        } else {
            count = 0
        }
        return Array(output[0..<count])
    }
}
