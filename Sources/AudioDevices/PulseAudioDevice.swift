import AudioCore
import Synchronization

/// Real sound hardware on Linux through a PulseAudio server (or PipeWire's pulse service), with
/// libpulse-simple: one record and one playback stream, each on its own thread. The record thread
/// blocks in `pa_simple_read` for one buffer and delivers it; the playback thread pulls one buffer
/// and blocks in `pa_simple_write` until the server has room, so the sound card's clock paces
/// both. Connecting happens in `initializeCapturer` / `initializeRenderer`, which throw
/// `.unavailable` with PulseAudio's own error text and a hint when no server is reachable.
public final class PulseAudioDevice: AudioDevice {
    /// Where to connect and what to ask for.
    public struct Configuration: Sendable, Hashable {
        /// The server, as PULSE_SERVER takes it (`unix:/path`, `tcp:host:port`); nil uses
        /// PULSE_SERVER, then the client configuration, then the per-user default socket.
        public var server: String?
        /// The client name the server shows.
        public var applicationName: String
        /// The source (microphone) and sink (speaker) names; nil for the server's defaults.
        public var sourceName: String?
        public var sinkName: String?
        public var captureFormat: AudioFormat
        public var renderFormat: AudioFormat
        /// Buffers queued on the server for playback (its target latency is this many buffer
        /// durations; 4 × 10 ms by default).
        public var playbackBuffers: Int

        public init(server: String? = nil, applicationName: String = "Parley", sourceName: String? = nil,
                    sinkName: String? = nil,
                    captureFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1),
                    renderFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1),
                    playbackBuffers: Int = 4) {
            self.server = server
            self.applicationName = applicationName
            self.sourceName = sourceName
            self.sinkName = sinkName
            self.captureFormat = captureFormat
            self.renderFormat = renderFormat
            self.playbackBuffers = playbackBuffers
        }
    }

    public let configuration: Configuration
    private let onError: (@Sendable (AudioDeviceError) -> Void)?
    private let state = Mutex(State())

    /// - Parameter onError: called (on the device thread) when a stream fails after it started,
    ///   e.g. because the server went away; that side then stops delivering.
    public init(_ configuration: Configuration = Configuration(),
                onError: (@Sendable (AudioDeviceError) -> Void)? = nil) throws(AudioDeviceError) {
        try validate(configuration.captureFormat, "capture format")
        try validate(configuration.renderFormat, "render format")
        guard configuration.captureFormat.channels <= 32, configuration.renderFormat.channels <= 32 else {
            throw AudioDeviceError(.unsupportedFormat, "PulseAudio takes at most 32 channels")
        }
        self.configuration = configuration
        self.onError = onError
    }

    deinit {
        stopCapturing()
        stopRendering()
    }

    // MARK: Capture

    public func captureFormat() -> AudioFormat? { configuration.captureFormat }

    public func initializeCapturer() throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard s.capture.thread == nil else { throw AudioDeviceError(.invalidState, "PulseAudio is capturing") }
            if s.capture.stream == nil {
                s.capture.stream = try PulseAudioStream(.record, format: configuration.captureFormat,
                                                        server: configuration.server,
                                                        applicationName: configuration.applicationName,
                                                        deviceName: configuration.sourceName, playbackBuffers: 0)
            }
        }
    }

    public func startCapturing(context: any AudioCapturingContext) throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard let stream = s.capture.stream else {
                throw AudioDeviceError(.invalidState, "PulseAudio: start capturing before initializing")
            }
            guard s.capture.thread == nil else { throw AudioDeviceError(.invalidState, "PulseAudio is already capturing") }
            s.captureContext = context
            let onError = self.onError
            s.capture.thread = try DeviceThread(name: "PulseAudio record") { [weak self] thread in
                var buffer = [Int16](repeating: 0, count: stream.format.samplesPerBuffer)
                while !thread.isStopRequested {
                    let read = buffer.withUnsafeMutableBufferPointer { b in
                        Result { () throws(AudioDeviceError) in try stream.read(into: b) }
                    }
                    if case .failure(let error) = read {
                        if !thread.isStopRequested { onError?(error) }
                        return
                    }
                    guard let device = self else { return }
                    device.state.withLock { s in
                        guard s.capture.thread === thread, let context = s.captureContext else { return }
                        buffer.withUnsafeBufferPointer { context.deliverCapturedSamples($0) }
                    }
                }
            }
        }
    }

    public func stopCapturing() {
        let (thread, stream) = state.withLock { s in
            defer { s.capture = StreamSide(); s.captureContext = nil }
            return (s.capture.thread, s.capture.stream)
        }
        thread?.stop()
        _ = stream     // released (pa_simple_free) only after its thread has ended
    }

    // MARK: Render

    public func renderFormat() -> AudioFormat? { configuration.renderFormat }

    public func initializeRenderer() throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard s.render.thread == nil else { throw AudioDeviceError(.invalidState, "PulseAudio is rendering") }
            if s.render.stream == nil {
                s.render.stream = try PulseAudioStream(.playback, format: configuration.renderFormat,
                                                       server: configuration.server,
                                                       applicationName: configuration.applicationName,
                                                       deviceName: configuration.sinkName,
                                                       playbackBuffers: configuration.playbackBuffers)
            }
        }
    }

    public func startRendering(context: any AudioRenderingContext) throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard let stream = s.render.stream else {
                throw AudioDeviceError(.invalidState, "PulseAudio: start rendering before initializing")
            }
            guard s.render.thread == nil else { throw AudioDeviceError(.invalidState, "PulseAudio is already rendering") }
            s.renderContext = context
            let onError = self.onError
            s.render.thread = try DeviceThread(name: "PulseAudio playback") { [weak self] thread in
                var buffer = [Int16](repeating: 0, count: stream.format.samplesPerBuffer)
                while !thread.isStopRequested {
                    guard let device = self else { return }
                    device.state.withLock { s in
                        buffer.withUnsafeMutableBufferPointer { b in
                            if s.render.thread === thread, let context = s.renderContext {
                                context.readRenderSamples(into: b)
                            } else {
                                b.update(repeating: 0)
                            }
                        }
                    }
                    let written = buffer.withUnsafeBufferPointer { b in
                        Result { () throws(AudioDeviceError) in try stream.write(b) }
                    }
                    if case .failure(let error) = written {
                        if !thread.isStopRequested { onError?(error) }
                        return
                    }
                }
            }
        }
    }

    public func stopRendering() {
        let (thread, stream) = state.withLock { s in
            defer { s.render = StreamSide(); s.renderContext = nil }
            return (s.render.thread, s.render.stream)
        }
        thread?.stop()
        _ = stream
    }

    // MARK: State

    private struct StreamSide {
        var stream: PulseAudioStream?
        var thread: DeviceThread?
    }

    private struct State {
        var capture = StreamSide()
        var render = StreamSide()
        var captureContext: (any AudioCapturingContext)?
        var renderContext: (any AudioRenderingContext)?
    }
}
