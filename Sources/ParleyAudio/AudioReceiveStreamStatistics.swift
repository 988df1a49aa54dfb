
/// The figures of an `AudioReceiveStream` (WebRTC inbound-rtp style).
public struct AudioReceiveStatistics: Sendable, Equatable {
    public var codec: AudioCodecKind
    /// The SSRC currently received, nil before the first packet.
    public var ssrc: UInt32?
    /// RTP packets of this stream (codec or RED payload type) and their payload bytes.
    public var packetsReceived = 0
    public var bytesReceived = 0
    /// Packets with another payload type, or a RED payload that does not parse.
    public var packetsIgnored = 0
    /// Cumulative packets lost (RFC 3550 §6.4.1: expected minus received; duplicates may make it negative).
    public var packetsLost = 0
    /// packetsLost / expected, 0…1 (cumulative since the current SSRC started).
    public var lossFraction: Double = 0
    /// RFC 3550 §6.4.1 / A.8 interarrival jitter, in milliseconds.
    public var jitterMs: Double = 0
    /// Output level of the last 100 ms: peak amplitude, linear 0…1 (1 = full scale), as WebRTC's audioLevel.
    public var outputLevel: Double = 0
    /// WebRTC totalAudioEnergy and totalSamplesDuration of what was played out.
    public var totalOutputEnergy: Double = 0
    public var totalOutputDuration: Double = 0
    /// The jitter buffer's own counters and delays.
    public var jitterBuffer = JitterBufferStatistics()

    public init(codec: AudioCodecKind) { self.codec = codec }
}

/// Peak and energy of what is played out, WebRTC style: the level is the peak of the last 100 ms.
struct AudioOutputLevelMeter {
    private let windowSamples: Int
    private var peak: Int32 = 0
    private var counted = 0
    private(set) var level: Double = 0
    private(set) var totalEnergy: Double = 0
    private(set) var totalDuration: Double = 0
    private let sampleRate: Double

    init(sampleRate: Int, channels: Int) {
        windowSamples = max(sampleRate / 10, 1) * max(channels, 1)
        self.sampleRate = Double(max(sampleRate, 1) * max(channels, 1))
    }

    mutating func add(_ pcm: UnsafeMutableBufferPointer<Int16>) {
        guard !pcm.isEmpty else { return }
        var framePeak: Int32 = 0
        for s in pcm { framePeak = max(framePeak, abs(Int32(s))) }
        peak = max(peak, framePeak)
        counted += pcm.count
        // WebRTC totalAudioEnergy: sum of level² × duration, per buffer.
        let bufferLevel = Double(framePeak) / 32_767
        let duration = Double(pcm.count) / sampleRate
        totalEnergy += bufferLevel * bufferLevel * duration
        totalDuration += duration
        if counted >= windowSamples {
            level = min(Double(peak) / 32_767, 1)
            peak = 0
            counted = 0
        }
    }
}
