/// In-band DTMF: plays a dial string as dual tones into the outgoing PCM, for legs that did not
/// negotiate RFC 4733 telephone-event. Each key is a tone of `toneMilliseconds` (low group at
/// `lowGroupLevelDBFS`, high group at `highGroupLevelDBFS`, a little louder as telephone sets do),
/// then `gapMilliseconds` during which the captured audio passes through untouched; `w` waits
/// `pauseMilliseconds`, also passing audio through.
///
/// Sample-accurate and allocation-free per buffer: `process(_:channels:)` overwrites exactly the
/// samples that fall inside a tone, whatever the buffer size.
public struct DTMFToneGenerator: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Length of each key's tone (at least 40 ms, ITU-T Q.24's shortest recognised tone).
        public var toneMilliseconds: Int
        /// Silence between keys (normal audio passes), at least 40 ms.
        public var gapMilliseconds: Int
        /// What `w` waits.
        public var pauseMilliseconds: Int
        /// Peak level of the low-group (row) tone.
        public var lowGroupLevelDBFS: Double
        /// Peak level of the high-group (column) tone; 2 dB above the low group gives normal twist.
        public var highGroupLevelDBFS: Double

        public init(toneMilliseconds: Int = 100, gapMilliseconds: Int = 70, pauseMilliseconds: Int = 500,
                    lowGroupLevelDBFS: Double = -8, highGroupLevelDBFS: Double = -6) {
            self.toneMilliseconds = max(40, toneMilliseconds)
            self.gapMilliseconds = max(40, gapMilliseconds)
            self.pauseMilliseconds = max(0, pauseMilliseconds)
            self.lowGroupLevelDBFS = lowGroupLevelDBFS
            self.highGroupLevelDBFS = highGroupLevelDBFS
        }
    }

    /// What the generator is doing at the current sample.
    private enum Segment: Sendable {
        case idle
        case tone(remaining: Int)
        case passThrough(remaining: Int)
    }

    public let sampleRate: Int
    public let configuration: Configuration
    private var queue = DTMFDialQueue()
    private var segment = Segment.idle
    private var tone: ToneGenerator

    public init(sampleRate: Int, configuration: Configuration = Configuration()) {
        self.sampleRate = sampleRate
        self.configuration = configuration
        let silent = ToneGenerator.Tone(frequency: 0, levelDBFS: -.infinity)
        tone = ToneGenerator(sampleRate: sampleRate, first: silent)
    }

    /// Queues the keys and pauses of `dialString` after whatever is still playing.
    public mutating func enqueue(_ dialString: DTMFDialString) {
        queue.enqueue(dialString)
    }

    /// Validates and queues a dial string (`0`–`9`, `*`, `#`, `w`).
    public mutating func enqueue(_ string: String) throws(DTMFDialStringError) {
        try queue.enqueue(string)
    }

    /// True while a tone, gap or pause is still to be played.
    public var isActive: Bool {
        if case .idle = segment { return queue.hasPending }
        return true
    }

    /// The key whose tone is playing at the next sample, if any.
    public private(set) var currentDigit: DTMFDigit?

    /// Drops everything queued and stops the current tone at once.
    public mutating func cancel() {
        queue.removeAll()
        segment = .idle
        currentDigit = nil
    }

    /// Overwrites the samples of `buffer` (interleaved, `channels` per frame) that fall inside a
    /// tone and leaves the others as captured. Returns true when any tone sample was written.
    @discardableResult
    public mutating func process(_ buffer: UnsafeMutableBufferPointer<Int16>, channels: Int = 1) -> Bool {
        let channels = max(1, channels)
        let frames = buffer.count / channels
        var frame = 0
        var wroteTone = false
        while frame < frames {
            if case .idle = segment, !startNextElement() { break }
            switch segment {
            case .idle:
                break
            case .tone(let remaining):
                let count = min(remaining, frames - frame)
                let start = frame * channels
                let slice = UnsafeMutableBufferPointer(rebasing: buffer[start..<start + count * channels])
                tone.generate(into: slice, channels: channels)
                wroteTone = true
                frame += count
                if remaining == count {
                    segment = .passThrough(remaining: samples(milliseconds: configuration.gapMilliseconds))
                    currentDigit = nil
                } else {
                    segment = .tone(remaining: remaining - count)
                }
            case .passThrough(let remaining):
                let count = min(remaining, frames - frame)
                frame += count
                segment = remaining == count ? .idle : .passThrough(remaining: remaining - count)
            }
        }
        return wroteTone
    }

    /// Renders one key on its own (tone only, no gap) into a new array; for tests and tools.
    public static func samples(for digit: DTMFDigit, sampleRate: Int, milliseconds: Int,
                               configuration: Configuration = Configuration()) -> [Int16] {
        var generator = ToneGenerator(sampleRate: sampleRate,
                                      first: .init(frequency: digit.lowFrequency, levelDBFS: configuration.lowGroupLevelDBFS),
                                      second: .init(frequency: digit.highFrequency, levelDBFS: configuration.highGroupLevelDBFS))
        return generator.samples(frames: sampleRate * milliseconds / 1000)
    }

    /// Moves to the next queued element; false when the queue is empty.
    private mutating func startNextElement() -> Bool {
        guard let element = queue.next() else { return false }
        switch element {
        case .digit(let digit):
            tone.setTones(.init(frequency: digit.lowFrequency, levelDBFS: configuration.lowGroupLevelDBFS),
                          .init(frequency: digit.highFrequency, levelDBFS: configuration.highGroupLevelDBFS))
            tone.resetPhase()
            currentDigit = digit
            segment = .tone(remaining: samples(milliseconds: configuration.toneMilliseconds))
        case .pause:
            segment = .passThrough(remaining: samples(milliseconds: configuration.pauseMilliseconds))
        }
        return true
    }

    private func samples(milliseconds: Int) -> Int {
        max(1, sampleRate * milliseconds / 1000)
    }
}
