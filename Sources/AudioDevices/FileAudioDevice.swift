import AudioCore

/// A device whose microphone is a WAV file and whose speaker is another: for tests, bots and the
/// `parley-bench` quality runs.
///
/// Capture delivers the input file's samples, in its own rate and channels (resampling is the
/// engine's job), `framesPerBuffer` at a time; the last buffer is zero-padded. With `looping` it
/// starts over at the end; otherwise the input ends there: capture stops delivering and the
/// device signals it (`onEndOfInput`, `waitForEndOfInput()`, `hasReachedEndOfInput`). Rendering
/// pulls buffers in `renderFormat` and streams them to the output WAV (or only counts them when
/// there is no output path); the file is finished when rendering stops. See `AudioPacing` for
/// how buffers are timed.
public final class FileAudioDevice: AudioDevice, PacedAudioDevice {
    let core: PacedDeviceCore<WAVCaptureSource, WAVRenderSink>

    /// - Parameters:
    ///   - input: the microphone's audio, or nil for a render-only device.
    ///   - outputPath: where rendered audio is written (created or truncated by
    ///     `initializeRenderer`), or nil to discard it.
    ///   - renderFormat: the format the engine renders in; 48 kHz mono, 10 ms buffers by default.
    ///   - captureFramesPerBuffer: frames per captured buffer; 10 ms of the input by default.
    ///   - looping: whether the input starts over when it ends.
    ///   - onEndOfInput: called once when a non-looping input has been delivered completely,
    ///     on the thread that delivered it, outside the device's lock (it may stop the device).
    public init(input: WAVFile?, outputPath: String?,
                renderFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1),
                captureFramesPerBuffer: Int? = nil, looping: Bool = false, pacing: AudioPacing = .realTime,
                onEndOfInput: (@Sendable () -> Void)? = nil) throws(AudioDeviceError) {
        var source: WAVCaptureSource?
        if let input {
            let format = input.audioFormat(framesPerBuffer: captureFramesPerBuffer)
            try validate(format, "input")
            source = WAVCaptureSource(samples: input.samples, format: format, looping: looping)
        }
        try validate(renderFormat, "render format")
        core = PacedDeviceCore(name: "parley-file-dev", pacing: pacing, source: source,
                               sink: WAVRenderSink(format: renderFormat, path: outputPath),
                               onEndOfInput: onEndOfInput)
    }

    /// Reads the input from `inputPath` (any WAV `WAVFile` parses) when given.
    public convenience init(inputPath: String?, outputPath: String?,
                            renderFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1),
                            captureFramesPerBuffer: Int? = nil, looping: Bool = false, pacing: AudioPacing = .realTime,
                            onEndOfInput: (@Sendable () -> Void)? = nil) throws(AudioDeviceError) {
        let input = try inputPath.map { path throws(AudioDeviceError) in try WAVFile(contentsOfFile: path) }
        try self.init(input: input, outputPath: outputPath, renderFormat: renderFormat,
                      captureFramesPerBuffer: captureFramesPerBuffer, looping: looping, pacing: pacing,
                      onEndOfInput: onEndOfInput)
    }

    public var pacing: AudioPacing { core.pacing }

    /// Whether a non-looping input has been delivered completely (reset by `initializeCapturer`).
    public var hasReachedEndOfInput: Bool { core.hasReachedEndOfInput }

    /// Returns once a non-looping input has been delivered completely.
    public func waitForEndOfInput() async { await core.waitForEndOfInput() }

    /// `.manual` pacing: delivers one capture buffer and pulls one render buffer (for the sides
    /// that are started). Does nothing under the other pacings.
    public func tick() { core.tick() }

    /// Frames rendered since the renderer was last initialized.
    public var renderedFrameCount: Int { core.withSink { $0.framesRendered } ?? 0 }

    /// The first error writing the output file, after which rendering continues without writing.
    public var outputError: AudioDeviceError? { core.withSink { $0.writeError } ?? nil }
}

/// Plays interleaved samples out buffer by buffer, optionally looping.
struct WAVCaptureSource: PacedCaptureSource {
    let samples: [Int16]
    let format: AudioFormat
    let looping: Bool
    private var position = 0

    init(samples: [Int16], format: AudioFormat, looping: Bool) {
        // Whole frames only, so looping never shifts channels.
        self.samples = samples.count % format.channels == 0 ? samples
            : Array(samples.prefix(samples.count - samples.count % format.channels))
        self.format = format
        self.looping = looping
    }

    mutating func prepare() throws(AudioDeviceError) { position = 0 }

    mutating func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> CaptureFill {
        let total = samples.count
        guard total > 0, looping || position < total else { return .exhausted }
        var written = 0
        samples.withUnsafeBufferPointer { source in
            while written < buffer.count {
                if position == total {
                    guard looping else { break }
                    position = 0
                }
                let count = min(buffer.count - written, total - position)
                (buffer.baseAddress! + written).update(from: source.baseAddress! + position, count: count)
                written += count
                position += count
            }
        }
        if written < buffer.count {
            (buffer.baseAddress! + written).update(repeating: 0, count: buffer.count - written)
        }
        return !looping && position == total ? .last : .more
    }
}

/// Streams rendered buffers to a WAV file (when it has a path) and counts them.
struct WAVRenderSink: PacedRenderSink {
    let format: AudioFormat
    let path: String?
    private var writer: WAVFileWriter?
    private(set) var framesRendered = 0
    private(set) var writeError: AudioDeviceError?

    init(format: AudioFormat, path: String?) {
        self.format = format
        self.path = path
    }

    mutating func open() throws(AudioDeviceError) {
        framesRendered = 0
        writeError = nil
        if let path { writer = try WAVFileWriter(path: path, sampleRate: format.sampleRate, channels: format.channels) }
    }

    mutating func consume(_ buffer: UnsafeBufferPointer<Int16>) {
        framesRendered += buffer.count / format.channels
        guard let writer else { return }
        do {
            try writer.append(buffer)
        } catch {
            writeError = error
            self.writer = nil
        }
    }

    mutating func close() {
        do {
            try writer?.close()
        } catch {
            if writeError == nil { writeError = error }
        }
        writer = nil
    }
}
