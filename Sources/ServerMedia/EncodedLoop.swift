import ParleyCore

/// Server media that sounds the same on every call, so it is encoded once per codec and the
/// payloads shared: a ringing call, a held call and hold music then cost no encoding at all (Opus
/// at complexity 5 costs ~200 µs per frame on the reference machine, 1 % of a core per call).
public enum SharedMedia: Hashable, Sendable {
    /// Silence forever (a held call without music).
    case silence
    /// Ringback of a region, from the start of its cadence.
    case ringback(RingbackSource.Region)
    /// The built-in hold music (`HoldMusic`).
    case holdMusic

    /// A fresh source of the sound and its period in 20 ms frames.
    var sourceAndPeriod: (any AudioSource, Int) {
        switch self {
        case .silence: (SilenceSource(), 1)
        case .ringback(let region): (RingbackSource(region: region), region.cadenceMilliseconds.reduce(0, +) / 20)
        case .holdMusic: (HoldMusic.source(), HoldMusic.loop.samples.count / MediaAudio.frameSamples)
        }
    }
}

/// One period of a periodic sound, encoded. The source is encoded for two periods and the second
/// kept, so the encoder state at the loop's start is the one the end of the loop left: the wrap
/// from the last frame to the first is as seamless as any other frame boundary.
final class EncodedLoop: Sendable {
    let frames: [[UInt8]]
    let samplesPerFrame: Int

    init(_ media: SharedMedia, codec: CallAudioCodec, configuration: CallMediaPlayer.Configuration) throws(MediaError) {
        var (source, period) = media.sourceAndPeriod
        let encoder: FrameEncoder
        do {
            encoder = try FrameEncoder(codec: codec, configuration: configuration)
        } catch {
            throw MediaError(.internalFailure, "\(codec.rawValue) encoder: \(error)")
        }
        var pcm = [Int16](repeating: 0, count: MediaAudio.frameSamples)
        var frames: [[UInt8]] = []
        frames.reserveCapacity(period)
        for index in 0..<(2 * period) {
            _ = pcm.withUnsafeMutableBufferPointer { source.readSamples(into: $0) }
            let payload: [UInt8]
            do {
                payload = try pcm.withUnsafeBufferPointer { pcm throws(ParleyError) in try encoder.encode(pcm) }
            } catch {
                throw MediaError(.internalFailure, "encoding \(media): \(error)")
            }
            if index >= period { frames.append(payload) }
        }
        self.frames = frames
        samplesPerFrame = codec.samplesPerFrame
    }
}
