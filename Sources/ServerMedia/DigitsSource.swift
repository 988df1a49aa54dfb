import AudioCore

/// `<Play digits="…">`: in-band DTMF tones for the keys `0`–`9`, `*`, `#`, with `w` waiting half
/// a second (TwiML). Each key sounds for 100 ms followed by 70 ms of silence (the generator's
/// defaults, well inside ITU-T Q.24's 40 ms minimum). Levels are −8/−6 dBFS (low/high group).
public struct DigitsSource: AudioSource {
    public let digits: DTMFDialString
    private var generator: DTMFToneGenerator
    private var remaining: Int

    /// Throws `.invalidInput` naming the first character that is not a key or `w`.
    public init(_ digits: String, configuration: DTMFToneGenerator.Configuration = .init()) throws(MediaError) {
        let parsed: DTMFDialString
        do {
            parsed = try DTMFDialString(digits)
        } catch {
            throw MediaError(.invalidInput, "<Play digits>: \(error)")
        }
        self.init(parsed, configuration: configuration)
    }

    public init(_ digits: DTMFDialString, configuration: DTMFToneGenerator.Configuration = .init()) {
        self.digits = digits
        generator = DTMFToneGenerator(sampleRate: MediaAudio.sampleRate, configuration: configuration)
        generator.enqueue(digits)
        let perKey = (configuration.toneMilliseconds + configuration.gapMilliseconds) * MediaAudio.sampleRate / 1000
        let pause = configuration.pauseMilliseconds * MediaAudio.sampleRate / 1000
        remaining = digits.elements.reduce(0) { total, element in
            switch element {
            case .digit: total + perKey
            case .pause: total + pause
            }
        }
    }

    public mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        readSamples(into: buffer) > 0
    }

    public mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        buffer.update(repeating: 0)
        let n = min(remaining, buffer.count)
        guard n > 0 else { return 0 }
        generator.process(UnsafeMutableBufferPointer(rebasing: buffer[0..<n]))
        remaining -= n
        return n
    }
}
