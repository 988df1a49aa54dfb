import AudioCore

/// A music file prepared for mixing into a microphone signal: converted once, up front, to the
/// microphone's channel count and sample rate, then mixed in buffer by buffer without allocating.
struct MusicTrack {
    /// Interleaved samples in `format`'s rate and channels.
    let samples: [Int16]
    let format: AudioFormat
    private(set) var position = 0

    /// Maps channels (mono is copied to every channel; several are averaged into mono; otherwise
    /// channel `c` takes source channel `c mod n`) and converts the rate by linear interpolation
    /// (adequate for background music; the microphone itself is never resampled).
    init(_ music: WAVFile, for format: AudioFormat) {
        self.format = format
        let inChannels = max(1, music.channels)
        let outChannels = format.channels
        let inFrames = music.samples.count / inChannels
        guard inFrames > 0 else {
            samples = []
            return
        }
        func value(frame: Int, channel: Int) -> Float {
            if inChannels == outChannels { return Float(music.samples[frame * inChannels + channel]) }
            if inChannels == 1 { return Float(music.samples[frame]) }
            if outChannels == 1 {
                var sum: Float = 0
                for c in 0..<inChannels { sum += Float(music.samples[frame * inChannels + c]) }
                return sum / Float(inChannels)
            }
            return Float(music.samples[frame * inChannels + channel % inChannels])
        }
        let outFrames = Int(Int64(inFrames) * Int64(format.sampleRate) / Int64(max(1, music.sampleRate)))
        let step = Double(music.sampleRate) / Double(format.sampleRate)
        samples = [Int16](unsafeUninitializedCapacity: outFrames * outChannels) { out, count in
            for frame in 0..<outFrames {
                let position = Double(frame) * step
                let first = min(Int(position), inFrames - 1)
                let next = min(first + 1, inFrames - 1)
                let fraction = Float(position - Double(first))
                for channel in 0..<outChannels {
                    let a = value(frame: first, channel: channel)
                    let b = value(frame: next, channel: channel)
                    out[frame * outChannels + channel] = Int16((a + (b - a) * fraction).rounded())
                }
            }
            count = outFrames * outChannels
        }
    }

    mutating func rewind() { position = 0 }

    /// Adds `gain ×` the next `buffer.count` music samples to `buffer`, saturating at the Int16
    /// limits. Returns false once the music has ended (never while looping).
    mutating func mix(into buffer: UnsafeMutableBufferPointer<Int16>, gain: Float, looping: Bool) -> Bool {
        let total = samples.count
        guard total > 0 else { return false }
        var index = 0
        samples.withUnsafeBufferPointer { music in
            while index < buffer.count {
                if position >= total {
                    guard looping else { return }
                    position = 0
                }
                let count = min(buffer.count - index, total - position)
                for i in 0..<count {
                    let sum = Int32(buffer[index + i]) + Int32((Float(music[position + i]) * gain).rounded())
                    buffer[index + i] = Int16(clamping: sum)
                }
                index += count
                position += count
            }
        }
        return looping || position < total
    }
}
