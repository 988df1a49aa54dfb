import AudioCore
import ParleyAudio
import ParleyCore
import Synchronization
import WebRTC

/// Where a remote audio track's decoded audio goes (the seed's `AudioSink`): 20 ms of 48 kHz
/// mono samples at a time, on the track's own task.
public protocol AudioSink: AnyObject, Sendable {
    func renderSamples(_ samples: [Int16], sampleRate: Int)
}

/// Another participant's audio we receive (the seed's `RemoteAudioTrack`): its packets go
/// through a jitter buffer and the decoder (`AudioReceiveStream`; Opus or G.711), and every 20 ms the next
/// frame goes to each sink. `isPlaybackEnabled` off silences the sinks.
public final class RemoteAudioTrack: SlotReceiver {
    public let sid: String
    public let name: String

    private struct State {
        var receiver: AudioReceiveStream?
        var sinks: [any AudioSink] = []
        var isPlaybackEnabled = true
        var packets = 0
        var frames = 0
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private let player = Mutex<Task<Void, Never>?>(nil)

    init(sid: String, name: String) {
        self.sid = sid
        self.name = name
        started = clock.now
        let task = Task { [weak self] in
            var next = ContinuousClock.now
            var frame = [Int16](repeating: 0, count: 960)
            while !Task.isCancelled {
                next += .milliseconds(20)
                try? await Task.sleep(until: next, clock: .continuous)
                guard let self else { return }
                self.play(&frame)
            }
        }
        player.withLock { $0 = task }
    }

    deinit { player.withLock { $0 }?.cancel() }

    public var isPlaybackEnabled: Bool {
        get { state.withLock { $0.isPlaybackEnabled } }
        set { state.withLock { $0.isPlaybackEnabled = newValue } }
    }

    public func addSink(_ sink: any AudioSink) { state.withLock { $0.sinks.append(sink) } }
    public func removeSink(_ sink: any AudioSink) { state.withLock { $0.sinks.removeAll { $0 === sink } } }

    /// Packets received, frames played so far.
    public var packetsReceived: Int { state.withLock { $0.packets } }
    public var framesPlayed: Int { state.withLock { $0.frames } }

    func stop() { player.withLock { $0 }?.cancel() }

    private var microseconds: Int64 {
        let elapsed = clock.now - started
        return elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
    }

    func receive(_ packet: PeerConnection.ReceivedRTP) {
        let now = microseconds
        state.withLock { s in
            if s.receiver == nil {
                s.receiver = try? AudioReceiveStream(decoder: Self.decoder(payloadType: packet.payloadType),
                                                     configuration: AudioReceiveStreamConfiguration(payloadType: packet.payloadType))
            }
            s.packets += 1
            packet.payload.withUnsafeBytes { payload in
                _ = s.receiver?.receive(payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber,
                                        timestamp: packet.timestamp, ssrc: packet.ssrc, marker: packet.marker,
                                        payload: payload, at: now, isRetransmission: packet.isRetransmission)
            }
        }
    }

    /// The decoder of the slot's codec: G.711 by its static payload type (RFC 3551 §6: 0 PCMU,
    /// 8 PCMA), else Opus (a dynamic type: our offers carry no other).
    private static func decoder(payloadType: UInt8) throws(ParleyError) -> any AudioDecoder {
        switch payloadType {
        case 0: try G711AudioDecoder(kind: .pcmu)
        case 8: try G711AudioDecoder(kind: .pcma)
        default: try OpusAudioDecoder()
        }
    }

    /// One 20 ms step: the jitter buffer's next frame to the sinks.
    private func play(_ frame: inout [Int16]) {
        let now = microseconds
        let sinks = state.withLock { s -> [any AudioSink] in
            guard let receiver = s.receiver else { return [] }
            frame.withUnsafeMutableBufferPointer { receiver.read(into: $0, at: now) }
            s.frames += 1
            return s.isPlaybackEnabled ? s.sinks : []
        }
        for sink in sinks { sink.renderSamples(frame, sampleRate: 48_000) }
    }
}
