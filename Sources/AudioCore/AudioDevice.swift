/// A source and sink of call audio: the seed's `AudioDevice` model. The engine asks the device for
/// its formats, initializes it, then starts capturing and rendering with a context. The device
/// delivers recorded samples through the capturing context and pulls playout samples from the
/// rendering context on its own clock (a sound card's, a file's pacing timer, or as fast as a test
/// wants). Implementations: `FileAudioDevice`, `ToneAudioDevice`, `NullAudioDevice`,
/// `MixingAudioDevice`, `PulseAudioDevice` (target AudioDevices; `AudioDeviceFactory` builds one
/// from a name such as `"file:in.wav,out.wav"`).
///
/// Lifecycle, per side (capture and render independently): `initialize…` → `start…` → `stop…`,
/// and again from `initialize…`. Starting before initializing, or starting twice, throws
/// `.invalidState`. Stopping is idempotent and may be called in any state.
///
/// Threading: every method may be called from any thread. Callbacks into the contexts come on the
/// device's own thread(s) and may be made with the device's internal lock held (that is how
/// "nothing is called after stop returns" is kept), so a context must not call the device's
/// initialize, start or stop methods synchronously from inside a callback; hop to another thread
/// or task. Devices must call `captureFormatChanged()` / `renderFormatChanged()` without holding
/// the lock that `captureFormat()` / `renderFormat()` take, since the engine re-reads the format
/// from inside the notification.
public protocol AudioDevice: AnyObject, Sendable {
    /// The format the device records in, or nil when it does not capture.
    func captureFormat() -> AudioFormat?
    /// Prepares capturing (open files, connect to the sound server); no samples flow yet.
    func initializeCapturer() throws(AudioDeviceError)
    /// Starts delivering recorded samples to `context`.
    func startCapturing(context: any AudioCapturingContext) throws(AudioDeviceError)
    /// Stops capturing; no call into the context happens after this returns. Idempotent.
    func stopCapturing()

    /// The format the device plays in, or nil when it does not render.
    func renderFormat() -> AudioFormat?
    /// Prepares rendering; no samples flow yet.
    func initializeRenderer() throws(AudioDeviceError)
    /// Starts pulling playout samples from `context`.
    func startRendering(context: any AudioRenderingContext) throws(AudioDeviceError)
    /// Stops rendering; no call into the context happens after this returns. Idempotent.
    func stopRendering()
}

/// Where a capturing device delivers recorded audio (the engine's send side).
public protocol AudioCapturingContext: AnyObject, Sendable {
    /// Delivers interleaved samples in the device's capture format, one buffer
    /// (`framesPerBuffer × channels` samples) at a time. Called on the device's thread; must not
    /// block, and the pointer is valid only during the call.
    func deliverCapturedSamples(_ samples: UnsafeBufferPointer<Int16>)
    /// Tells the engine that `captureFormat()` changed; it re-reads the format.
    func captureFormatChanged()
}

/// Where a rendering device pulls playout audio from (the engine's receive side).
public protocol AudioRenderingContext: AnyObject, Sendable {
    /// Fills `buffer` completely with interleaved samples in the device's render format (silence
    /// when nothing is playing). Called on the device's clock; must not block.
    func readRenderSamples(into buffer: UnsafeMutableBufferPointer<Int16>)
    /// Tells the engine that `renderFormat()` changed; it re-reads the format.
    func renderFormatChanged()
}

/// Why a device could not start.
public struct AudioDeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No sound server or hardware is reachable (e.g. no PulseAudio daemon).
        case unavailable
        /// A file could not be opened, read or written.
        case file
        /// The device's data is not in a supported format.
        case unsupportedFormat
        /// A call out of order (start before initialize, twice, …).
        case invalidState
        /// A device name or option that does not describe a device (see `AudioDeviceFactory`).
        case invalidConfiguration
    }
    public var kind: Kind
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "audio device \(kind.rawValue): \(reason)" }
}
