import AudioCore

/// A device without a sound card whose whole `AudioDevice` lifecycle is its `PacedDeviceCore`'s.
///
/// The extension below is the one implementation of the `AudioDevice` requirements for all of
/// them. Its members are `public` so they can witness the public protocol; since this protocol is
/// internal, they are visible to clients only as `AudioDevice` requirements, so `pacing` and
/// `tick()` stay declared on each device (with their own documentation).
protocol PacedAudioDevice: AudioDevice {
    associatedtype Source: PacedCaptureSource
    associatedtype Sink: PacedRenderSink
    var core: PacedDeviceCore<Source, Sink> { get }
}

extension PacedAudioDevice {
    public func captureFormat() -> AudioFormat? { core.captureFormat() }
    public func initializeCapturer() throws(AudioDeviceError) { try core.initializeCapturer() }
    public func startCapturing(context: any AudioCapturingContext) throws(AudioDeviceError) {
        try core.startCapturing(context: context)
    }
    public func stopCapturing() { core.stopCapturing() }

    public func renderFormat() -> AudioFormat? { core.renderFormat() }
    public func initializeRenderer() throws(AudioDeviceError) { try core.initializeRenderer() }
    public func startRendering(context: any AudioRenderingContext) throws(AudioDeviceError) {
        try core.startRendering(context: context)
    }
    public func stopRendering() { core.stopRendering() }
}
