import AudioCore

/// A device that captures nothing and discards what it would play: for calls that only signal,
/// servers, and tests. Declares no formats, so the engine sends and renders no audio.
public final class NullAudioDevice: AudioDevice {
    public init() {}
    public func captureFormat() -> AudioFormat? { nil }
    public func initializeCapturer() throws(AudioDeviceError) {}
    public func startCapturing(context: any AudioCapturingContext) throws(AudioDeviceError) {}
    public func stopCapturing() {}
    public func renderFormat() -> AudioFormat? { nil }
    public func initializeRenderer() throws(AudioDeviceError) {}
    public func startRendering(context: any AudioRenderingContext) throws(AudioDeviceError) {}
    public func stopRendering() {}
}
