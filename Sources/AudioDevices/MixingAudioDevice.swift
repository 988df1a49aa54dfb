import AudioCore
import Synchronization

/// The seed's AudioDeviceExample (`ExampleAVAudioEngineDevice`): wraps another device and mixes a
/// music file into its microphone signal on demand, so the far end hears music over the voice.
///
/// Capture: the wrapped device's samples pass through; after `playMusic()` the music is added
/// (times `musicGain`, saturating) until `stopMusic()` or its end. Render: buffers pass through to
/// the wrapped device's renderer. `isEnabled` is the seed's switch (the app sets it when CallKit
/// activates or deactivates the audio session): while false no captured audio is delivered and
/// the wrapped renderer gets silence without the engine being asked for any.
///
/// The music is converted once to the microphone's channels and rate when the capturer is
/// initialized (see `MusicTrack`); mixing then allocates nothing.
public final class MixingAudioDevice: AudioDevice {
    /// The device whose microphone and speaker are used.
    public let wrapped: any AudioDevice
    private let shared: MixerShared
    private let captureTap: MixerCaptureTap
    private let renderTap: MixerRenderTap

    /// - Parameters:
    ///   - device: the device to record from and play through (e.g. a `FileAudioDevice` or
    ///     `PulseAudioDevice`).
    ///   - music: what `playMusic()` mixes in.
    ///   - musicGain: linear gain of the music (1 is as recorded; 0.5 is −6 dB).
    public init(wrapping device: any AudioDevice, music: WAVFile, musicGain: Double = 0.5) {
        wrapped = device
        shared = MixerShared(music: music, gain: musicGain)
        captureTap = MixerCaptureTap(shared, device: device)
        renderTap = MixerRenderTap(shared)
    }

    /// Reads the music from a WAV file.
    public convenience init(wrapping device: any AudioDevice, musicPath: String, musicGain: Double = 0.5) throws(AudioDeviceError) {
        self.init(wrapping: device, music: try WAVFile(contentsOfFile: musicPath), musicGain: musicGain)
    }

    /// The seed's `isEnabled`: while false, capture delivers nothing and rendering plays silence.
    public var isEnabled: Bool {
        get { shared.state.withLock { $0.isEnabled } }
        set { shared.state.withLock { $0.isEnabled = newValue } }
    }

    /// Linear gain applied to the music (0…8).
    public var musicGain: Double {
        get { shared.state.withLock { Double($0.gain) } }
        set { shared.state.withLock { $0.gain = Float(min(max(newValue, 0), 8)) } }
    }

    /// Starts mixing the music in, from its beginning; `looping` repeats it until `stopMusic()`.
    public func playMusic(looping: Bool = true) {
        shared.state.withLock { s in
            s.track?.rewind()
            s.musicLooping = looping
            s.musicPlaying = true
        }
    }

    /// Stops mixing the music in (the microphone continues alone).
    public func stopMusic() { shared.state.withLock { $0.musicPlaying = false } }

    /// Whether music is being mixed in (false again once non-looping music has ended).
    public var isPlayingMusic: Bool { shared.state.withLock { $0.musicPlaying } }

    // MARK: AudioDevice

    public func captureFormat() -> AudioFormat? { wrapped.captureFormat() }

    public func initializeCapturer() throws(AudioDeviceError) {
        try wrapped.initializeCapturer()
        guard let format = wrapped.captureFormat() else {
            throw AudioDeviceError(.invalidState, "the wrapped device does not capture")
        }
        shared.prepare(for: format)
    }

    public func startCapturing(context: any AudioCapturingContext) throws(AudioDeviceError) {
        shared.state.withLock { $0.captureContext = context }
        do {
            try wrapped.startCapturing(context: captureTap)
        } catch {
            shared.state.withLock { $0.captureContext = nil }
            throw error
        }
    }

    public func stopCapturing() {
        wrapped.stopCapturing()
        shared.state.withLock { $0.captureContext = nil }
    }

    public func renderFormat() -> AudioFormat? { wrapped.renderFormat() }
    public func initializeRenderer() throws(AudioDeviceError) { try wrapped.initializeRenderer() }

    public func startRendering(context: any AudioRenderingContext) throws(AudioDeviceError) {
        shared.state.withLock { $0.renderContext = context }
        do {
            try wrapped.startRendering(context: renderTap)
        } catch {
            shared.state.withLock { $0.renderContext = nil }
            throw error
        }
    }

    public func stopRendering() {
        wrapped.stopRendering()
        shared.state.withLock { $0.renderContext = nil }
    }
}

/// The mixer's state, shared by the device and its two taps. The taps call the engine's contexts
/// with the lock held (lock order: wrapped device, then mixer), which is why the device releases
/// it before calling into the wrapped device.
final class MixerShared: Sendable {
    struct State {
        let music: WAVFile
        var track: MusicTrack?
        var gain: Float
        var isEnabled = true
        var musicPlaying = false
        var musicLooping = true
        var captureContext: (any AudioCapturingContext)?
        var renderContext: (any AudioRenderingContext)?
        var scratch: [Int16] = []
    }

    let state: Mutex<State>

    init(music: WAVFile, gain: Double) {
        state = Mutex(State(music: music, gain: Float(min(max(gain, 0), 8))))
    }

    /// Converts the music for `format` (allocates; at initialization or a format change only).
    func prepare(for format: AudioFormat) {
        state.withLock { s in
            if s.track?.format.sampleRate != format.sampleRate || s.track?.format.channels != format.channels {
                s.track = MusicTrack(s.music, for: format)
            }
            if s.scratch.count < format.samplesPerBuffer {
                s.scratch = [Int16](repeating: 0, count: format.samplesPerBuffer)
            }
        }
    }
}

/// Receives the wrapped device's microphone, mixes the music in, and delivers to the engine.
final class MixerCaptureTap: AudioCapturingContext {
    private let shared: MixerShared
    /// Weak: the wrapped device holds the tap while it captures.
    private weak let device: (any AudioDevice)?

    init(_ shared: MixerShared, device: any AudioDevice) {
        self.shared = shared
        self.device = device
    }

    func deliverCapturedSamples(_ samples: UnsafeBufferPointer<Int16>) {
        shared.state.withLock { s in
            guard s.isEnabled, let context = s.captureContext else { return }
            guard s.musicPlaying, s.track != nil, samples.count > 0 else {
                context.deliverCapturedSamples(samples)
                return
            }
            if s.scratch.count < samples.count {
                s.scratch = [Int16](repeating: 0, count: samples.count)   // only for an oversized buffer
            }
            var scratch = s.scratch
            s.scratch = []
            let gain = s.gain
            let looping = s.musicLooping
            scratch.withUnsafeMutableBufferPointer { whole in
                let buffer = UnsafeMutableBufferPointer(rebasing: whole[..<samples.count])
                _ = buffer.update(fromContentsOf: samples)
                if !s.track!.mix(into: buffer, gain: gain, looping: looping) { s.musicPlaying = false }
                context.deliverCapturedSamples(UnsafeBufferPointer(buffer))
            }
            s.scratch = scratch
        }
    }

    func captureFormatChanged() {
        if let format = device?.captureFormat() { shared.prepare(for: format) }
        shared.state.withLock { $0.captureContext }?.captureFormatChanged()
    }
}

/// Passes the engine's playout to the wrapped device's speaker, or silence while disabled.
final class MixerRenderTap: AudioRenderingContext {
    private let shared: MixerShared

    init(_ shared: MixerShared) { self.shared = shared }

    func readRenderSamples(into buffer: UnsafeMutableBufferPointer<Int16>) {
        shared.state.withLock { s in
            if s.isEnabled, let context = s.renderContext {
                context.readRenderSamples(into: buffer)
            } else {
                buffer.update(repeating: 0)
            }
        }
    }

    func renderFormatChanged() {
        shared.state.withLock { $0.renderContext }?.renderFormatChanged()
    }
}
