/// Everything an `OpusEncoder` is created with. Values out of libopus's ranges are clamped.
public struct OpusEncoderConfiguration: Sendable, Equatable {
    /// 48 000 (the RTP clock of Opus, RFC 7587 §4.1); libopus also takes 8, 12, 16 and 24 kHz.
    public var sampleRate: Int32
    /// 1 or 2 (interleaved left/right).
    public var channels: Int32
    public var frameDuration: OpusFrameDuration
    /// Target bitrate in bits per second (6 000…510 000).
    public var bitrate: Int32
    /// The far end's `maxaveragebitrate` (RFC 7587 §6.1): the encoder never targets more than this.
    public var maxAverageBitrate: Int32?
    /// 0 (cheapest) … 10 (best).
    public var complexity: Int32
    public var application: OpusApplication
    public var signal: OpusSignal
    /// Variable bitrate (the default, as RFC 7587 §3.1.1 recommends).
    public var variableBitrate: Bool
    /// In-band forward error correction (LBRR, RFC 6716 §2.1.7): each packet also carries a coarse
    /// copy of the frame before it.
    public var inbandFEC: Bool
    /// Expected packet loss 0…100 %: how much redundancy the encoder spends on FEC.
    public var expectedPacketLossPercent: Int32
    /// Discontinuous transmission: silence is coded as 1–2 byte packets that need not be sent.
    public var dtx: Bool

    public init(sampleRate: Int32 = 48_000, channels: Int32 = 1, frameDuration: OpusFrameDuration = .ms20,
                bitrate: Int32 = 32_000, maxAverageBitrate: Int32? = nil, complexity: Int32 = 9,
                application: OpusApplication = .voip, signal: OpusSignal = .auto, variableBitrate: Bool = true,
                inbandFEC: Bool = false, expectedPacketLossPercent: Int32 = 0, dtx: Bool = false) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frameDuration = frameDuration
        self.bitrate = bitrate
        self.maxAverageBitrate = maxAverageBitrate
        self.complexity = complexity
        self.application = application
        self.signal = signal
        self.variableBitrate = variableBitrate
        self.inbandFEC = inbandFEC
        self.expectedPacketLossPercent = expectedPacketLossPercent
        self.dtx = dtx
    }

    /// Samples per channel in one frame.
    public var samplesPerFrame: Int { frameDuration.samples(atRate: Int(sampleRate)) }

    /// The bitrate the encoder is set to: `bitrate` capped by `maxAverageBitrate`, within 6…510 kb/s.
    public var effectiveBitrate: Int32 {
        let capped = maxAverageBitrate.map { min(bitrate, $0) } ?? bitrate
        return min(max(capped, 6_000), 510_000)
    }
}
