import ParleyCore
import Synchronization

/// A session's current source and encoder, behind their own lock so a tick encodes one call while
/// `start` and `stop` on others proceed.
final class PlaybackChannel: Sendable {
    enum Step {
        case frame([UInt8], samples: Int)
        case ended(MediaPlayback.Outcome)
        case inactive
    }

    let playback: MediaPlayback
    private let state: Mutex<Inner>

    /// Either a source with its encoder, or a shared encoded loop (then `pcm` is empty). Kept as
    /// optionals rather than an enum so the buffers are mutated in place, never copied.
    private struct Inner {
        var source: (any AudioSource)?
        var encoder: FrameEncoder?
        var pcm: [Int16]
        var loop: EncodedLoop?
        var loopPosition = 0
        var active = true
    }

    var session: String { playback.session }

    init(source: any AudioSource, session: String, codec: CallAudioCodec, configuration: CallMediaPlayer.Configuration,
         onEnd: (@Sendable (MediaPlayback.Outcome) -> Void)?) throws(MediaError) {
        let encoder: FrameEncoder
        do {
            encoder = try FrameEncoder(codec: codec, configuration: configuration)
        } catch {
            throw MediaError(.internalFailure, "\(codec.rawValue) encoder: \(error)")
        }
        state = Mutex(Inner(source: source, encoder: encoder, pcm: [Int16](repeating: 0, count: MediaAudio.frameSamples)))
        playback = MediaPlayback(session: session, codec: codec, onEnd: onEnd)
    }

    init(loop: EncodedLoop, session: String, codec: CallAudioCodec, onEnd: (@Sendable (MediaPlayback.Outcome) -> Void)?) {
        state = Mutex(Inner(pcm: [], loop: loop))
        playback = MediaPlayback(session: session, codec: codec, onEnd: onEnd)
    }

    /// The next 20 ms: the loop's next payload, or pulled from the source and encoded.
    func produce() -> Step {
        state.withLock { s in
            guard s.active else { return .inactive }
            if let loop = s.loop {
                guard !loop.frames.isEmpty else { return .inactive }
                let payload = loop.frames[s.loopPosition]
                s.loopPosition = s.loopPosition + 1 == loop.frames.count ? 0 : s.loopPosition + 1
                return .frame(payload, samples: loop.samplesPerFrame)
            }
            guard let encoder = s.encoder else { return .inactive }
            let audible = s.pcm.withUnsafeMutableBufferPointer { s.source?.readSamples(into: $0) ?? 0 }
            guard audible > 0 else {
                s.active = false
                return .ended(.finished)
            }
            do {
                let payload = try s.pcm.withUnsafeBufferPointer { pcm throws(ParleyError) in try encoder.encode(pcm) }
                return .frame(payload, samples: encoder.codec.samplesPerFrame)
            } catch {
                s.active = false
                return .ended(.failed("\(error)"))
            }
        }
    }

    /// Stops producing; true when it was still playing.
    func deactivate() -> Bool {
        state.withLock { s in
            defer { s.active = false }
            return s.active
        }
    }
}
