import AudioCore
import ParleyCore
import RTP
import Synchronization

/// The audio of one call: binds one `AudioDevice` to one `AudioSendStream` and one
/// `AudioReceiveStream`. The transport feeds it received RTP (`receive`) and takes the RTP it
/// produces (an `AudioEnginePacketSink`).
///
/// ```
/// device capture ─→ level meter ─→ mute (zeros) ─→ AudioSendStream ─→ SSRC, sequence ─→ sink
/// receive(…) ─┬→ AudioReceiveStream (codec, RED) ─→ read at clock now ─→ hold (zeros) ─→ device render
///             └→ DTMFReceiver (telephone-event PT) ─→ delegate
/// ```
///
/// Threads: the device's capture thread, its render thread, the network thread and the app all
/// call in. The send side and the receive side each sit behind their own `Mutex`, so capture and
/// playout never wait on each other; the network thread shares the receive side's lock with
/// playout. The per-packet and per-buffer paths allocate nothing once started.
///
/// Lifecycle: `start()` binds the device (a side whose format is nil is not used), `stop()`
/// unbinds it; both are idempotent, and the engine may be started again. While started the
/// device holds the engine as its context, so call `stop()` before letting the engine go.
public final class AudioEngine: AudioCapturingContext, AudioRenderingContext {
    public let configuration: AudioEngineConfiguration
    public let device: any AudioDevice
    private let clock: any AudioEngineClock
    private let sendSide: Mutex<AudioEngineSendSide>
    private let receiveSide: Mutex<AudioEngineReceiveSide>
    /// Which device sides are started. Held across device calls, never taken from a device callback.
    private let lifecycle = Mutex(Lifecycle())

    private struct Lifecycle {
        var isRunning = false
        /// The device's capture / render side is initialized or started by this engine.
        var isCapturing = false
        var isRendering = false
    }

    /// - Parameters:
    ///   - device: the microphone and speaker of the call.
    ///   - configuration: the negotiated codec, payload types and settings.
    ///   - packetSink: the transport that takes outgoing packets (settable later).
    ///   - clock: the monotonic clock of playout and arrival times; the system's by default.
    /// - Throws: `ParleyError` (`.mediaNoSupportedCodec`) for a configuration the codecs refuse.
    public init(device: any AudioDevice, configuration: AudioEngineConfiguration = AudioEngineConfiguration(),
                packetSink: (any AudioEnginePacketSink)? = nil,
                clock: any AudioEngineClock = MonotonicAudioEngineClock()) throws(ParleyError) {
        self.configuration = configuration
        self.device = device
        self.clock = clock
        var send = try AudioEngineSendSide(configuration: configuration)
        send.sink = packetSink
        sendSide = Mutex(send)
        receiveSide = Mutex(try AudioEngineReceiveSide(configuration: configuration))
    }

    // MARK: Lifecycle

    /// Initializes and starts the device's capturing and rendering in its own formats. A side
    /// whose format is nil is left alone. Does nothing when already started.
    /// - Throws: the device's `AudioDeviceError`; a format the codec path cannot take is
    ///   `.unsupportedFormat`. Nothing stays started after a throw.
    public func start() throws(AudioDeviceError) {
        try lifecycle.withLock { (state) throws(AudioDeviceError) in
            guard !state.isRunning else { return }
            receiveSide.withLock { $0.isStarted = true }
            do throws(AudioDeviceError) {
                if let format = device.captureFormat() {
                    try sendSide.withLock { (side) throws(AudioDeviceError) in
                        do throws(ParleyError) { try side.bind(format) } catch { throw Self.unsupported(format, error) }
                        side.stream.startTalkspurt()   // the first packet after a (re)start is marked
                    }
                    state.isCapturing = true   // from here a failure stops the side (stopping is idempotent)
                    try device.initializeCapturer()
                    try device.startCapturing(context: self)
                }
                if let format = device.renderFormat() {
                    try receiveSide.withLock { (side) throws(AudioDeviceError) in
                        do throws(ParleyError) { try side.bind(format) } catch { throw Self.unsupported(format, error) }
                    }
                    state.isRendering = true
                    try device.initializeRenderer()
                    try device.startRendering(context: self)
                }
            } catch {
                stopDevice(&state)
                receiveSide.withLock { $0.isStarted = false }
                throw error
            }
            state.isRunning = true
        }
    }

    /// Stops the device's capturing and rendering and ends a key being received. After it
    /// returns no packet goes to the sink and no delegate call is made (except a digit already
    /// being reported by a `receive` running at the same time). Idempotent.
    public func stop() {
        let stopped = lifecycle.withLock { state -> Bool in
            guard state.isRunning else { return false }
            stopDevice(&state)
            state.isRunning = false
            return true
        }
        guard stopped else { return }
        var events: [DTMFReceiverEvent] = []
        let delegate = receiveSide.withLock { side in
            side.isStarted = false
            side.finishDigits(events: &events)
            return side.delegate
        }
        for event in events { delegate?.audioEngine(self, didReceive: event) }
    }

    /// Whether `start()` has run and `stop()` has not.
    public var isRunning: Bool { lifecycle.withLock { $0.isRunning } }

    private func stopDevice(_ state: inout Lifecycle) {
        // Only the lifecycle lock is held here, which no device callback takes: a callback in
        // flight can finish, and the device returns only once it has.
        if state.isCapturing { device.stopCapturing() }
        if state.isRendering { device.stopRendering() }
        state.isCapturing = false
        state.isRendering = false
    }

    private static func unsupported(_ format: AudioFormat, _ error: ParleyError) -> AudioDeviceError {
        AudioDeviceError(.unsupportedFormat, "\(format): \(error.failureReason ?? error.description)")
    }

    // MARK: AudioCapturingContext

    /// The device's recorded samples: metered, replaced by zeros while muted, encoded; packets go
    /// to the sink on this thread.
    public func deliverCapturedSamples(_ samples: UnsafeBufferPointer<Int16>) {
        let samples = LentBuffer(samples)
        sendSide.withLock { $0.process(samples.pointer) }
    }

    public func captureFormatChanged() {
        guard let format = device.captureFormat() else { return }
        sendSide.withLock { side in
            do { try side.bind(format) } catch { Log.warning(.webrtc, "audio engine: capture format \(format): \(error)") }
        }
    }

    // MARK: AudioRenderingContext

    /// The device's pull: what the receive stream plays at the clock's now (silence on hold).
    public func readRenderSamples(into buffer: UnsafeMutableBufferPointer<Int16>) {
        let now = clock.microseconds()
        let buffer = LentBuffer(buffer)
        receiveSide.withLock { $0.read(into: buffer.pointer, at: now) }
    }

    public func renderFormatChanged() {
        guard let format = device.renderFormat() else { return }
        receiveSide.withLock { side in
            do { try side.bind(format) } catch { Log.warning(.webrtc, "audio engine: render format \(format): \(error)") }
        }
    }

    // MARK: Network

    /// Takes one received RTP packet (SRTP removed): the codec's and RED's payload types go to the
    /// receive stream, the telephone-event payload type to the DTMF receiver, whose keys reach the
    /// delegate on this thread. `arrivalTime` is microseconds of the engine's clock; nil reads it.
    /// Packets are dropped while the engine is stopped.
    /// `isRetransmission`: the transport asked for the packet again (RFC 4585 NACK).
    public func receive(payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool,
                        payload: UnsafeRawBufferPointer, at arrivalTime: Int64? = nil, isRetransmission: Bool = false) {
        let now = arrivalTime ?? clock.microseconds()
        let payload = LentBuffer(payload)
        var events: [DTMFReceiverEvent] = []
        let delegate = receiveSide.withLock { side in
            side.receive(payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                         marker: marker, payload: payload.pointer, at: now, isRetransmission: isRetransmission,
                         events: &events)
            return events.isEmpty ? nil : side.delegate
        }
        guard let delegate else { return }
        for event in events { delegate.audioEngine(self, didReceive: event) }
    }

    /// Takes one received RTP packet by its view (see the other `receive`).
    public func receive(_ packet: RTPPacketView, at arrivalTime: Int64? = nil) {
        receive(payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                ssrc: packet.ssrc, marker: packet.marker, payload: packet.payload, at: arrivalTime)
    }

    // MARK: Controls

    /// The transport that takes outgoing packets; nil drops them (uncounted).
    public var packetSink: (any AudioEnginePacketSink)? {
        get { sendSide.withLock { $0.sink } }
        set { sendSide.withLock { $0.sink = newValue } }
    }

    /// Receives DTMF reports; held weakly.
    public var delegate: (any AudioEngineDelegate)? {
        get { receiveSide.withLock { $0.delegate } }
        set { receiveSide.withLock { $0.delegate = newValue } }
    }

    /// While muted the stream sends frames of silence in place of the microphone, so packets keep
    /// flowing with their timing; the input level reads 0.
    public var isMuted: Bool {
        get { sendSide.withLock { $0.isMuted } }
        set { sendSide.withLock { $0.isMuted = newValue } }
    }

    /// On hold nothing is sent (frames are still encoded and dropped, so the RTP clock keeps time
    /// and the first packet after is marked, RFC 3551 §4.1) and the far end is not played: the
    /// device gets silence. Telephone events still go out.
    public var isOnHold: Bool {
        get { sendSide.withLock { $0.isOnHold } }
        set {
            sendSide.withLock { $0.isOnHold = newValue }
            receiveSide.withLock { $0.isOnHold = newValue }
        }
    }

    /// Queues digits: `0`–`9`, `*`, `#`, `w` (a 500 ms pause). They go out as RFC 4733 telephone
    /// events when `telephoneEventPayloadType` is set, as in-band tones otherwise, on the capture
    /// clock (a device that does not capture sends none).
    /// - Throws: `DTMFDialStringError` naming the first other character; nothing is queued then.
    public func sendDigits(_ digits: String) throws(DTMFDialStringError) {
        try sendSide.withLock { (side) throws(DTMFDialStringError) in try side.stream.sendDigits(digits) }
    }

    /// Whether queued digits are still being sent.
    public var isSendingDigits: Bool { sendSide.withLock { $0.stream.isSendingDigits } }

    /// The far end's RTCP receiver report about our stream (RFC 3550 §6.4.1): the fraction lost
    /// (0…255) switches Opus FEC; the cumulative loss and jitter, when given, go to the statistics.
    public func reportRemoteLoss(fractionLost: UInt8, cumulativePacketsLost: Int64? = nil,
                                 jitterMilliseconds: Double? = nil) {
        sendSide.withLock { side in
            side.stream.reportRemoteLoss(fractionLost: fractionLost)
            side.remoteFractionLost = fractionLost
            if let cumulativePacketsLost { side.remotePacketsLost = cumulativePacketsLost }
            if let jitterMilliseconds { side.remoteJitterMs = jitterMilliseconds }
        }
    }

    /// The round-trip time computed from RTCP (RFC 3550 §6.4.1, LSR/DLSR), in milliseconds.
    public func updateRoundTripTime(_ milliseconds: Double) {
        guard milliseconds.isFinite, milliseconds >= 0 else { return }
        sendSide.withLock { $0.roundTripTimeMs = milliseconds }
    }

    /// Microseconds of the engine's clock now.
    public var now: Int64 { clock.microseconds() }

    func withSendSide<R: Sendable>(_ body: (inout AudioEngineSendSide) -> R) -> R { sendSide.withLock { body(&$0) } }
    func withReceiveSide<R: Sendable>(_ body: (inout AudioEngineReceiveSide) -> R) -> R { receiveSide.withLock { body(&$0) } }
}

/// A buffer a caller lends the engine for the duration of one call (a device's capture or render
/// buffer, a received payload), to be used under the engine's lock. `@unchecked Sendable` because
/// region analysis cannot follow a pointer into the locked state: the engine only reads or writes
/// through it during that call and never keeps it, so no other thread can see it.
struct LentBuffer<Pointer>: @unchecked Sendable {
    let pointer: Pointer

    init(_ pointer: Pointer) { self.pointer = pointer }
}
