import AudioCore
import CPulseAudio

/// One libpulse-simple connection: a record or a playback stream of 16-bit little-endian PCM.
///
/// `@unchecked Sendable`: a `pa_simple` must not be used by two threads at once, and it never is.
/// `PulseAudioDevice` hands each stream to exactly one thread at a time: the device thread
/// between start and stop (stop joins that thread before it releases the stream), otherwise the
/// device itself under its lock. The handle is immutable and freed once, in `deinit`.
final class PulseAudioStream: @unchecked Sendable {
    enum Direction { case record, playback }

    private let handle: OpaquePointer
    let format: AudioFormat

    /// Connects to the server. Buffering is set for `format.framesPerBuffer`-sized transfers:
    /// recording in fragments of one buffer; playback keeping `playbackBuffers` buffers queued
    /// and asking for more one buffer at a time.
    init(_ direction: Direction, format: AudioFormat, server: String?, applicationName: String,
         deviceName: String?, playbackBuffers: Int) throws(AudioDeviceError) {
        self.format = format
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(format.sampleRate),
                                  channels: UInt8(format.channels))
        let bufferBytes = UInt32(format.samplesPerBuffer * 2)
        let useDefault = UInt32.max
        var attributes = direction == .record
            ? pa_buffer_attr(maxlength: useDefault, tlength: useDefault, prebuf: useDefault, minreq: useDefault,
                             fragsize: bufferBytes)
            : pa_buffer_attr(maxlength: useDefault, tlength: bufferBytes * UInt32(max(2, playbackBuffers)),
                             prebuf: useDefault, minreq: bufferBytes, fragsize: useDefault)
        var error: Int32 = 0
        let connection = pa_simple_new(server, applicationName,
                                       direction == .record ? PA_STREAM_RECORD : PA_STREAM_PLAYBACK,
                                       deviceName, direction == .record ? "Call microphone" : "Call audio",
                                       &spec, nil, &attributes, &error)
        guard let connection else {
            throw Self.connectionError(error, server: server,
                                       device: deviceName.map { (direction == .record ? "source " : "sink ") + $0 })
        }
        handle = connection
    }

    deinit { pa_simple_free(handle) }

    /// Blocks until `buffer` is full of recorded samples.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(AudioDeviceError) {
        var error: Int32 = 0
        guard pa_simple_read(handle, buffer.baseAddress, buffer.count * 2, &error) >= 0 else {
            throw AudioDeviceError(.unavailable, "PulseAudio recording failed: \(Self.text(error))")
        }
    }

    /// Blocks until the server has room for `buffer`, which paces playback.
    func write(_ buffer: UnsafeBufferPointer<Int16>) throws(AudioDeviceError) {
        var error: Int32 = 0
        guard pa_simple_write(handle, buffer.baseAddress, buffer.count * 2, &error) >= 0 else {
            throw AudioDeviceError(.unavailable, "PulseAudio playback failed: \(Self.text(error))")
        }
    }

    /// PulseAudio's own text for `code`, e.g. "Connection refused".
    static func text(_ code: Int32) -> String {
        pa_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// A connection failure, with PulseAudio's text and what to do about it.
    static func connectionError(_ code: Int32, server: String?, device: String?) -> AudioDeviceError {
        let target = server.map { "server \($0)" } ?? "the default server"
        let reason = "PulseAudio: \(text(code)) (\(target))"
        switch code {
        case Int32(PA_ERR_CONNECTIONREFUSED.rawValue), Int32(PA_ERR_INVALIDSERVER.rawValue),
             Int32(PA_ERR_TIMEOUT.rawValue), Int32(PA_ERR_CONNECTIONTERMINATED.rawValue),
             Int32(PA_ERR_ACCESS.rawValue), Int32(PA_ERR_AUTHKEY.rawValue):
            return AudioDeviceError(.unavailable, reason + ". No PulseAudio server is running or reachable: start one "
                + "(`pulseaudio --start`, or PipeWire's pipewire-pulse), or set PULSE_SERVER (or pass the server) "
                + "to the address of one, e.g. unix:/run/user/1000/pulse/native or tcp:host:4713.")
        case Int32(PA_ERR_NOENTITY.rawValue):
            return AudioDeviceError(.unavailable, reason + ": no \(device ?? "such device") on the server")
        case Int32(PA_ERR_NOTSUPPORTED.rawValue), Int32(PA_ERR_INVALID.rawValue):
            return AudioDeviceError(.unsupportedFormat, reason)
        default:
            return AudioDeviceError(.unavailable, reason)
        }
    }
}
