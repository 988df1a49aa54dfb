import AudioCore

/// The capture half of a paced device: produces one buffer of `format` per tick.
protocol PacedCaptureSource: SendableMetatype {
    var format: AudioFormat { get }
    /// Called by `initializeCapturer`: rewind to the start.
    mutating func prepare() throws(AudioDeviceError)
    /// Fills all of `buffer` (`format.samplesPerBuffer` samples). Must not allocate.
    mutating func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> CaptureFill
}

/// What one `fill` produced.
enum CaptureFill {
    /// A buffer, and more follow.
    case more
    /// The final buffer (zero-padded after the last sample); the input has ended.
    case last
    /// Nothing: the input had already ended.
    case exhausted
}

/// The render half of a paced device: consumes each buffer pulled from the rendering context.
protocol PacedRenderSink: SendableMetatype {
    var format: AudioFormat { get }
    /// Called by `initializeRenderer` (e.g. creates the output file).
    mutating func open() throws(AudioDeviceError)
    /// Takes one buffer of `format.samplesPerBuffer` samples. Must not allocate.
    mutating func consume(_ buffer: UnsafeBufferPointer<Int16>)
    /// Called by `stopRendering` (e.g. fixes the WAV sizes and closes the file). Idempotent.
    mutating func close()
}

/// Checks a format a device was configured with.
func validate(_ format: AudioFormat, _ role: String) throws(AudioDeviceError) {
    guard format.sampleRate >= 1_000, format.sampleRate <= 384_000 else {
        throw AudioDeviceError(.unsupportedFormat, "\(role) sample rate \(format.sampleRate) Hz is outside 1 kHz…384 kHz")
    }
    guard format.channels >= 1, format.channels <= WAVFile.maximumChannels else {
        throw AudioDeviceError(.unsupportedFormat, "\(role) has \(format.channels) channels")
    }
    guard format.framesPerBuffer >= 1, format.framesPerBuffer <= format.sampleRate else {
        throw AudioDeviceError(.unsupportedFormat, "\(role) buffers of \(format.framesPerBuffer) frames (1…one second)")
    }
}
