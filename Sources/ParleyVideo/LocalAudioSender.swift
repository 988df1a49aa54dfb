import AudioCore
import ParleyAudio
import ParleyCore
import ParleyOpus
import Synchronization
import WebRTC

/// A local audio track on the wire: its device's captured samples, encoded in 20 ms frames
/// (`AudioSendStream`; Opus, or G.711 when the answer chose it), each sent on the track's transceiver with its RFC 6464 level.
/// A disabled track sends nothing.
final class LocalAudioSender: AudioCapturingContext {
    /// Where each 20 ms Opus frame goes: its payload, RTP timestamp, marker and RFC 6464 level.
    typealias Outlet = @Sendable (_ payload: [UInt8], _ timestamp: UInt32, _ marker: Bool, _ level: UInt8) -> Void

    private let device: any AudioDevice
    private let outlet: Outlet
    let track: LocalAudioTrack
    private let stream: Mutex<OpusFrames>

    /// Sending on a room transceiver (group rooms).
    convenience init(track: LocalAudioTrack, device: any AudioDevice, codec: AudioCodec, peer: PeerConnection,
                     transceiver: RTPTransceiver) throws(ParleyError) {
        try self.init(track: track, device: device, codec: codec) { payload, timestamp, marker, level in
            peer.send(payload: payload, on: transceiver, timestamp: timestamp, marker: marker, audioLevel: level)
        }
    }

    init(track: LocalAudioTrack, device: any AudioDevice, codec: AudioCodec = .opus, outlet: @escaping Outlet) throws(ParleyError) {
        guard let format = device.captureFormat() else {
            throw ParleyError(.mediaClientLocalDescFailed, reason: "the audio device of track \(track.name) does not capture")
        }
        self.device = device
        self.outlet = outlet
        self.track = track
        stream = Mutex(OpusFrames(stream: try AudioSendStream(configuration: AudioSendStreamConfiguration(codec: codec.kind),
                                                             inputFormat: format)))
    }

    func start() throws(ParleyError) {
        do {
            try device.initializeCapturer()
            try device.startCapturing(context: self)
        } catch {
            throw ParleyError(.mediaClientLocalDescFailed, reason: "the audio device of track \(track.name): \(error)")
        }
    }

    func stop() { device.stopCapturing() }

    /// Caps the Opus encoder at `limit` bits per second (`EncodingParameters.audioBitrate`): its
    /// 40 kbit/s default when nil or higher. G.711 has no rate to set.
    func setMaxBitrate(_ limit: Int?) { stream.withLock { $0.cap(limit) } }

    func deliverCapturedSamples(_ samples: UnsafeBufferPointer<Int16>) {
        guard track.isEnabled else { return }
        let level = AudioLevel.rfc6464(samples)
        let lent = LentSamples(pointer: samples)
        let outlet = self.outlet
        // The outlet only queues onto the connection's loop, so it runs inside the lock.
        stream.withLock { $0.encode(lent.pointer) { outlet($0, $1, $2, level) } }
    }

    func captureFormatChanged() {
        guard let format = device.captureFormat() else { return }
        stream.withLock { $0.update(format) }
    }
}

/// The device's buffer, lent for the duration of one capture callback.
struct LentSamples: @unchecked Sendable {
    let pointer: UnsafeBufferPointer<Int16>
}

/// The track's encoder, behind the sender's lock: 20 ms Opus frames out of captured samples.
struct OpusFrames {
    let stream: AudioSendStream

    mutating func encode(_ samples: UnsafeBufferPointer<Int16>, emit: (_ payload: [UInt8], _ timestamp: UInt32, _ marker: Bool) -> Void) {
        try? stream.process(samples) { emit(Array($0.payload), $0.timestamp, $0.marker) }
    }

    mutating func update(_ format: AudioFormat) { try? stream.updateInputFormat(format) }

    /// The encoder's rate: the stream's configured bitrate, or `limit` when lower.
    mutating func cap(_ limit: Int?) {
        stream.opus?.bitrate = Int32(clamping: min(stream.configuration.bitrate, limit ?? .max))
    }
}
