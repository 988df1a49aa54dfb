import AudioCore
import CallQuality
import Foundation
import ICE
import ParleyAudio
import ParleyCore
import Synchronization
import WebRTC

/// A call's media: the WebRTC connection to the server (ICE, DTLS-SRTP, RTP/RTCP) and, once it
/// connects, the audio engine that records from and plays to the device. The engine numbers its
/// own packets (`PeerConnection.sendRTP`); received packets go to it from the connection's stream.
final class CallMedia: Sendable {
    let peer: PeerConnection
    private let options: CallMediaOptions
    private let engine = Mutex<AudioEngine?>(nil)
    private let receiver = Mutex<Task<Void, Never>?>(nil)
    private let digits = Mutex<DigitForwarder?>(nil)
    /// Mute and hold chosen before the engine existed.
    private let pending = Mutex((muted: false, onHold: false))

    init(options: CallMediaOptions) throws(ParleyError) {
        self.options = options
        var configuration = PeerConnection.Configuration(iceServers: try options.iceServers.map(Self.iceServer),
                                                         transportPolicy: options.iceTransportPolicy)
        configuration.audioCodecs = options.preferredAudioCodecs.map {
            switch $0 {
            case .opus: .opus
            case .pcmu: .pcmu
            case .pcma: .pcma
            }
        }
        for case .opus(let bitrate?) in options.preferredAudioCodecs { configuration.opusMaxAverageBitrate = bitrate }
        // The audio engine reads RED (RFC 2198) and sends it as loss calls for it; lost packets are
        // asked for again (RFC 4585 NACK) while they can still be played.
        configuration.offerRED = true
        configuration.offerAudioNACK = true
        peer = try PeerConnection(configuration: configuration)
    }

    /// `stun:IP:PORT` or `turn:IP:PORT[?transport=udp]` (IP literals: no DNS lookups here).
    static func iceServer(_ server: ICEServer) throws(ParleyError) -> PeerConnection.ICEServer {
        try PeerConnection.ICEServer(url: server.urlString, username: server.username, password: server.password)
    }

    /// Starts the audio engine on the negotiated codec; called once media is connected. Keys the
    /// far end presses reach `onDigit` on the network thread.
    func startAudio(device: any AudioDevice, onDigit: @escaping @Sendable (String) -> Void) async throws(ParleyError) {
        let statistics = await peer.statistics()
        guard let codec = statistics.codec, let payloadType = statistics.payloadType else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "connected without a negotiated codec")
        }
        let kind: AudioCodecKind = switch codec {
        case .opus: .opus
        case .pcmu: .pcmu
        case .pcma: .pcma
        }
        var bitrate = AudioSendStreamConfiguration().bitrate
        for case .opus(let limit?) in options.preferredAudioCodecs { bitrate = min(bitrate, limit) }
        let minimumDelay = Self.jitterBufferMilliseconds(options.audioOptions.minimumJitterBufferDelay)
        let configuration = AudioEngineConfiguration(
            codec: kind, payloadType: payloadType,
            // RFC 2198 when negotiated, its distance following the server's loss reports (none on a clean path).
            redPayloadType: statistics.redPayloadType, redDistance: 1, adaptiveRED: true,
            telephoneEventPayloadType: statistics.telephoneEventPayloadType,
            bitrate: bitrate, minimumJitterBufferDelayMs: minimumDelay,
            maximumJitterBufferDelayMs: Self.jitterBufferMilliseconds(options.audioOptions.maximumJitterBufferDelay),
            initialJitterBufferDelayMs: minimumDelay)
        let engine = try AudioEngine(device: device, configuration: configuration, packetSink: PeerConnectionSink(peer: peer))
        let digits = DigitForwarder(onDigit)
        engine.delegate = digits
        self.digits.withLock { $0 = digits }  // the engine holds its delegate weakly
        let (muted, onHold) = pending.withLock { ($0.muted, $0.onHold) }
        engine.isMuted = muted
        engine.isOnHold = onHold
        do { try engine.start() } catch {
            throw ParleyError(.mediaConnection, reason: "audio device: \(error)")
        }
        self.engine.withLock { $0 = engine }
        let audio = peer.audio
        receiver.withLock {
            $0 = Task.detached {
                for await packet in audio {
                    packet.payload.withUnsafeBytes { payload in
                        engine.receive(payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber,
                                       timestamp: packet.timestamp, ssrc: packet.ssrc, marker: packet.marker,
                                       payload: payload, isRetransmission: packet.isRetransmission)
                    }
                }
            }
        }
    }

    /// A jitter-buffer bound in whole milliseconds, taken within 0…10 s (the engine raises a
    /// maximum below the minimum to it).
    static func jitterBufferMilliseconds(_ delay: Duration) -> Int {
        Int(min(max(delay.milliseconds, 0), 10_000).rounded())
    }

    var isMuted: Bool {
        get { pending.withLock { $0.muted } }
        set {
            pending.withLock { $0.muted = newValue }
            engine.withLock { $0 }?.isMuted = newValue
        }
    }

    var isOnHold: Bool {
        get { pending.withLock { $0.onHold } }
        set {
            pending.withLock { $0.onHold = newValue }
            engine.withLock { $0 }?.isOnHold = newValue
        }
    }

    /// Queues DTMF digits as RFC 4733 events (in-band tones when none were negotiated).
    func sendDigits(_ digits: String) throws(ParleyError) {
        guard let engine = engine.withLock({ $0 }) else {
            throw ParleyError(.mediaConnection, reason: "digits before the call's audio started")
        }
        do { try engine.sendDigits(digits) } catch {
            throw ParleyError(.malformedRequest, reason: "\(error)")
        }
    }

    var audioEngine: AudioEngine? { engine.withLock { $0 } }

    /// One second's quality sample (taken once a second by calls and the preflight test): the
    /// connection's RTCP figures go to the engine first (the RTT for MOS, the far end's loss for
    /// Opus FEC), then the engine's `qualitySample()`. Nil before audio started.
    func takeQualitySample() async -> (connection: PeerConnection.Statistics, quality: CallQualitySample)? {
        guard let engine = audioEngine else { return nil }
        let connection = await peer.statistics()
        if let rtt = connection.roundTripTime { engine.updateRoundTripTime(rtt.milliseconds) }
        // NACKs only for what can still play within the jitter buffer's delay.
        let delay = engine.statistics().remote.jitterBuffer.targetDelayMs
        if delay > 0 { peer.setPlayoutBudget(.milliseconds(delay)) }
        if let fraction = connection.remoteFractionLost {
            engine.reportRemoteLoss(fractionLost: fraction, cumulativePacketsLost: connection.remoteCumulativeLost.map(Int64.init))
        }
        return (connection, engine.qualitySample())
    }

    /// Stops the engine and closes the connection.
    func close() async {
        engine.withLock { $0 }?.stop()
        receiver.withLock { $0 }?.cancel()
        await peer.close()
    }
}

/// Reports each received key once, when it begins (RFC 4733 §2.5.2).
private final class DigitForwarder: AudioEngineDelegate {
    let onDigit: @Sendable (String) -> Void

    init(_ onDigit: @escaping @Sendable (String) -> Void) { self.onDigit = onDigit }

    func audioEngine(_ engine: AudioEngine, didReceive event: DTMFReceiverEvent) {
        if case .began(let key) = event { onDigit(key.digit.description) }
    }
}

/// Hands the engine's packets to the connection.
private final class PeerConnectionSink: AudioEnginePacketSink {
    let peer: PeerConnection

    init(peer: PeerConnection) { self.peer = peer }

    func send(_ packet: AudioEnginePacket) {
        peer.sendRTP(payload: Array(packet.payload), payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber,
                     timestamp: packet.timestamp, marker: packet.marker)
    }
}
