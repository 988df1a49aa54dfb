import AudioCore
import ParleyAudio

/// Decoded audio ready to play: 48 kHz mono 16-bit samples, shared (copy-on-write) by every
/// playback of the same prompt. Made from WAV bytes (fetched `<Play>` files, local hold music) or
/// by the speech synthesizer.
public struct PCMAudio: Hashable, Sendable {
    public let samples: [Int16]

    /// Audio already at 48 kHz mono.
    public init(samples: [Int16]) {
        self.samples = samples
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(MediaAudio.sampleRate) }

    /// Memory the samples take, for cache accounting.
    public var byteCount: Int { samples.count * 2 }

    /// Any WAV `WAVFile` reads (PCM 8…32-bit, float) or G.711 µ-law/A-law WAV, mixed down to
    /// mono and resampled to 48 kHz. Audio longer than `maximumSeconds` is cut there.
    public init(wavBytes: [UInt8], maximumSeconds: Double = 600) throws(MediaError) {
        let wav: WAVFile
        do {
            wav = try WAVFile(parsing: wavBytes)
        } catch .unsupportedEncoding(let tag, let bits) where G711WAV.isG711(formatTag: tag) {
            guard bits == 8 else {
                throw MediaError(.unsupportedFormat, "G.711 WAV with \(bits) bits per sample")
            }
            wav = try G711WAV.decode(wavBytes)
        } catch {
            throw MediaError(.unsupportedFormat, "not a playable WAV: \(error)")
        }
        try self.init(wav: wav, maximumSeconds: maximumSeconds)
    }

    /// `wav` mixed down to mono (channels averaged) and resampled to 48 kHz, cut at `maximumSeconds`.
    public init(wav: WAVFile, maximumSeconds: Double = 600) throws(MediaError) {
        guard wav.channels > 0, wav.sampleRate > 0 else {
            throw MediaError(.unsupportedFormat, "WAV with \(wav.channels) channels at \(wav.sampleRate) Hz")
        }
        let limit = maximumSeconds.isFinite ? max(0, Int(maximumSeconds * Double(wav.sampleRate))) : Int.max
        let frames = min(wav.frameCount, limit)
        var mono: [Int16]
        if wav.channels == 1 {
            mono = Array(wav.samples.prefix(frames))
        } else {
            let channels = wav.channels
            mono = [Int16](repeating: 0, count: frames)
            wav.samples.withUnsafeBufferPointer { all in
                for f in 0..<frames {
                    var sum = 0
                    for c in 0..<channels { sum += Int(all[f * channels + c]) }
                    mono[f] = Int16(sum / channels)
                }
            }
        }
        samples = try Self.resample(mono, from: wav.sampleRate)
    }

    /// Resamples a whole mono signal to 48 kHz, time-aligned (`Resampler.resample`).
    static func resample(_ input: [Int16], from rate: Int) throws(MediaError) -> [Int16] {
        do { return try Resampler.resample(input, from: rate, to: MediaAudio.sampleRate) } catch {
            throw MediaError(.unsupportedFormat, "cannot resample \(rate) Hz: \(error)")
        }
    }
}

/// `<Play>` of decoded audio, `loop` times (0 = until stopped, as TwiML's `loop="0"`).
public struct PCMSource: AudioSource {
    public let audio: PCMAudio
    /// Plays left, counting the current one; nil plays forever.
    private var playsLeft: Int?
    private var position = 0

    public init(_ audio: PCMAudio, loop: Int = 1) {
        self.audio = audio
        playsLeft = loop <= 0 ? nil : loop
        if audio.samples.isEmpty { playsLeft = 0 }
    }

    public mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        readSamples(into: buffer) > 0
    }

    public mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        var index = 0
        audio.samples.withUnsafeBufferPointer { samples in
            while index < buffer.count, playsLeft != 0 {
                let count = min(samples.count - position, buffer.count - index)
                _ = UnsafeMutableBufferPointer(rebasing: buffer[index..<index + count])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: samples[position..<position + count]))
                index += count
                position += count
                if position == samples.count {
                    position = 0
                    playsLeft = playsLeft.map { $0 - 1 }
                }
            }
        }
        if index < buffer.count {
            UnsafeMutableBufferPointer(rebasing: buffer[index...]).update(repeating: 0)
        }
        return index
    }
}
