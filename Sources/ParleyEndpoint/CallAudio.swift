import AudioCore
import Foundation
import ParleyAudio
import ParleyCore
import ParleyNet
import ParleyRTP
import ParleySRTP
import RTCP
import RTP
import SDP
import SIP
import Synchronization

/// One call's audio: its own UDP socket (RTP with RTCP multiplexed, RFC 5761; RTCP elsewhere
/// when the far end did not take `a=rtcp-mux`), an `RTPSession` (plain RTP or SDES-SRTP keyed from
/// offer/answer, RFC 4568) and the audio engine (codec, jitter buffer, PLC, RFC 4733 keys).
///
/// Threads: the socket delivers on the user agent's loop; the engine's capture thread sends
/// through ``send(_:)``. Both take the `RTPSession` under one lock. `@unchecked Sendable`: that
/// state is only touched under `lock`, and the socket is set once in ``open(host:loop:)`` before
/// any packet can arrive, read-only after.
final class CallAudio: AudioEnginePacketSink, AudioEngineDelegate, @unchecked Sendable {
    private var socket: UDPSocket?
    private let device: any AudioDevice
    private let onDigit: @Sendable (String) -> Void
    var debugLog = false
    /// The RTP state, shared by the loop (receive) and the capture thread (send) under `lock`.
    private var state = Media()
    private let lock = NSLock()
    private let engine = Mutex<AudioEngine?>(nil)
    /// Mute and hold chosen before the engine started.
    private let controls = Mutex((muted: false, onHold: false))

    private struct Media {
        var rtp = RTPSession(configuration: RTPSession.Configuration(cname: "parley-endpoint", requiresSRTP: false))
        /// The SDP's address until the far end's first packet, then its source (RFC 4961).
        var destination: SocketAddress?
        var rtcpDestination: SocketAddress?
        var latched = false
        var sends = true
        var nextReportAt = 0.0
        var sent = 0
        var received = 0
        /// One send buffer: header, payload, SRTP trailer.
        var buffer = [UInt8](repeating: 0, count: 1500)
    }

    init(device: any AudioDevice, onDigit: @escaping @Sendable (String) -> Void) {
        self.device = device
        self.onDigit = onDigit
    }

    /// Binds the socket on `host` (ephemeral port).
    func open(host: String, loop: EventLoop) throws(EndpointError) {
        do {
            socket = try UDPSocket.inPlace(host: host, port: 0, loop: loop, batchSize: 8, maxDatagramBytes: 1500, sendBatchSize: 8) {
                [weak self] batch in self?.receive(batch)
            }
        } catch {
            throw EndpointError(code: EndpointError.mediaFailed, reason: "cannot bind an RTP socket on \(host): \(error)")
        }
    }

    var port: Int { socket?.localPort ?? 0 }

    private func withMedia<T>(_ body: (inout Media) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// Packets sent and received so far.
    var counts: (sent: Int, received: Int) { withMedia { ($0.sent, $0.received) } }

    /// Applies what offer/answer settled (the first answer, early media's, a re-INVITE's) and
    /// starts the engine the first time. The codec of a running engine is kept.
    func configure(_ p: SIPAudioParameters, maxAverageBitrate: Int?) throws(EndpointError) {
        let remote = try? SocketAddress.resolve(host: p.remoteAddress, port: Int(p.remotePort))
        let held = p.remoteAddress == "0.0.0.0" || p.remoteAddress == "::"
        let rtcp = p.rtcpMux ? remote : try? SocketAddress.resolve(host: p.remoteRTCPAddress, port: Int(p.remoteRTCPPort))
        var context: SRTPContext?
        if let srtp = p.srtp {
            guard srtp.suite == .aesCM128HMACSHA1_80 else {
                throw EndpointError(code: 488, reason: "SRTP suite \(srtp.suite.rawValue) is not supported")
            }
            let keys = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localKey: srtp.localKey.masterKey, localSalt: srtp.localKey.masterSalt,
                                          remoteKey: srtp.remoteKey.masterKey, remoteSalt: srtp.remoteKey.masterSalt)
            do { context = try SRTPContext(keyingMaterial: keys) } catch {
                throw EndpointError(code: EndpointError.mediaFailed, reason: "SRTP keys: \(error)")
            }
        }
        let kind: AudioCodecKind
        switch p.codec.name.lowercased() {
        case "opus": kind = .opus
        case "pcmu": kind = .pcmu
        case "pcma": kind = .pcma
        default: throw EndpointError(code: 488, reason: "codec \(p.codec.name) is not supported")
        }
        let existing = engine.withLock { $0 }
        withMedia { m in
            var formats = [RTPPayloadFormat(payloadType: p.codec.payloadType, kind: .audio, clockRate: p.codec.clockRate, section: 0)]
            if let event = p.telephoneEvent {
                formats.append(RTPPayloadFormat(payloadType: event.payloadType, kind: .telephoneEvent, clockRate: event.clockRate, section: 0))
            }
            var session = RTPSession(configuration: RTPSession.Configuration(cname: m.rtp.configuration.cname, requiresSRTP: context != nil),
                                     payloadFormats: RTPPayloadFormats(formats))
            if let context { session.setSRTP(context) }
            m.rtp = session
            if m.destination == nil || !m.latched || remote != m.destination {
                m.destination = held ? nil : remote
                m.latched = false
            }
            m.rtcpDestination = rtcp
            m.sends = p.direction.sends && !held
        }
        if existing != nil {
            if debugLog { Log.info(.core, "endpoint audio: reconfigured \(p.direction) sends=\(p.direction.sends) sent=\(counts.sent) received=\(counts.received)") }
            return
        }
        var bitrate = AudioSendStreamConfiguration().bitrate
        if let maxAverageBitrate { bitrate = min(bitrate, maxAverageBitrate) }
        let configuration = AudioEngineConfiguration(codec: kind, payloadType: p.codec.payloadType,
                                                     telephoneEventPayloadType: p.telephoneEvent?.payloadType, bitrate: bitrate,
                                                     maxAverageBitrate: kind == .opus ? maxAverageBitrate : nil,
                                                     minimumJitterBufferDelayMs: 40, maximumJitterBufferDelayMs: 400,
                                                     initialJitterBufferDelayMs: 60)
        let created: AudioEngine
        do { created = try AudioEngine(device: device, configuration: configuration, packetSink: self) } catch {
            throw EndpointError(code: EndpointError.mediaFailed, reason: "audio engine: \(error)")
        }
        created.delegate = self
        let (muted, onHold) = controls.withLock { ($0.muted, $0.onHold) }
        created.isMuted = muted
        created.isOnHold = onHold
        do { try created.start() } catch {
            throw EndpointError(code: EndpointError.mediaFailed, reason: "audio device: \(error)")
        }
        engine.withLock { $0 = created }
    }

    var isMuted: Bool {
        get { controls.withLock { $0.muted } }
        set {
            controls.withLock { $0.muted = newValue }
            engine.withLock { $0 }?.isMuted = newValue
        }
    }

    var isOnHold: Bool {
        get { controls.withLock { $0.onHold } }
        set {
            controls.withLock { $0.onHold = newValue }
            engine.withLock { $0 }?.isOnHold = newValue
        }
    }

    /// Queues keys as RFC 4733 events (in-band tones when none were negotiated).
    func sendDigits(_ digits: String) throws(EndpointError) {
        guard let engine = engine.withLock({ $0 }) else {
            throw EndpointError(code: EndpointError.invalidState, reason: "digits before the call's audio started")
        }
        do { try engine.sendDigits(digits) } catch {
            throw EndpointError.invalid("digits \"\(digits)\": \(error)")
        }
    }

    func stop() {
        engine.withLock { engine in
            engine?.stop()
            engine = nil
        }
        socket?.close()
    }

    // MARK: - AudioEnginePacketSink (capture thread)

    func send(_ packet: AudioEnginePacket) {
        let datagram: Datagram? = withMedia { m in
            guard m.sends, let to = m.destination else { return nil }
            let trailer = m.rtp.trailerLength
            guard packet.serializedSize + trailer <= m.buffer.count else { return nil }
            let length = m.buffer.withUnsafeMutableBytes { raw -> Int? in
                guard let written = packet.serialize(into: raw) else { return nil }
                return try? m.rtp.protectRTP(raw, length: written)
            }
            guard let length else { return nil }
            m.sent += 1
            return Datagram(address: to, bytes: Array(m.buffer[0..<length]))
        }
        if let datagram { socket?.send([datagram]) }
    }

    // MARK: - AudioEngineDelegate

    func audioEngine(_ engine: AudioEngine, didReceive event: DTMFReceiverEvent) {
        if case .began(let key) = event { onDigit(key.digit.description) }
    }

    // MARK: - Receiving (loop thread)

    private func receive(_ batch: UDPReceivedBatch) {
        let engine = self.engine.withLock { $0 }
        let now = SystemClock.now.seconds
        for index in 0..<batch.count {
            let datagram = batch[index]
            let bytes = datagram.bytes
            guard bytes.count >= RTPFixedHeader.size, bytes[0] >> 6 == 2 else { continue }
            if (192...223).contains(bytes[1]) {
                withMedia { m in _ = try? m.rtp.receiveRTCP(bytes, length: bytes.count, arrival: now, arrivalNTP: NTPTime.now()) }
                continue
            }
            let report: (Datagram)? = withMedia { m in
                guard let packet = try? m.rtp.receiveRTP(bytes, length: bytes.count, arrival: now), packet.format != nil else { return nil }
                // Symmetric RTP: plain RTP latches to the first source; SRTP (authenticated) may move it.
                if !m.latched || (m.rtp.srtp != nil && datagram.address != m.destination) {
                    m.destination = datagram.address
                    if m.rtcpDestination == nil || !m.latched { m.rtcpDestination = datagram.address }
                    m.latched = true
                } else if datagram.address != m.destination {
                    return nil
                }
                m.received += 1
                engine?.receive(packet.view)
                guard now >= m.nextReportAt, let to = m.rtcpDestination,
                      let report = try? m.rtp.reportDatagram(now: now, ntp: NTPTime.now()) else { return nil }
                m.nextReportAt = now + 5  // RFC 3550 §6.2's 5 s minimum interval
                return Datagram(address: to, bytes: report)
            }
            if let report { socket?.send([report]) }
        }
    }
}
