/// The layout of a stream of interleaved 16-bit PCM: the seed's `AudioFormat` (sample rate,
/// number of channels, frames per buffer). A frame is one sample per channel.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Samples per second per channel, e.g. 48 000.
    public var sampleRate: Int
    /// 1 (mono) or 2 (stereo, interleaved left/right).
    public var channels: Int
    /// Frames the device delivers or pulls per buffer; 10 ms by default, as WebRTC devices use.
    public var framesPerBuffer: Int

    public init(sampleRate: Int = 48_000, channels: Int = 1, framesPerBuffer: Int? = nil) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.framesPerBuffer = framesPerBuffer ?? sampleRate / 100
    }

    /// Interleaved samples in one buffer (`framesPerBuffer × channels`).
    public var samplesPerBuffer: Int { framesPerBuffer * channels }

    /// Duration of one buffer in seconds.
    public var bufferDuration: Double { Double(framesPerBuffer) / Double(sampleRate) }

    /// Frames in `milliseconds` of audio at this rate.
    public func frames(milliseconds: Int) -> Int { sampleRate * milliseconds / 1000 }

    public var description: String { "\(sampleRate) Hz × \(channels) ch, \(framesPerBuffer) frames/buffer" }
}
