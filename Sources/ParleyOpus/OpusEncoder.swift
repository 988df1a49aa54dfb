import COpus
import ParleyCore

/// An Opus encoder (RFC 6716) for 48 kHz PCM in 10, 20, 40 or 60 ms frames, mono or stereo.
///
/// Settings can change between frames (bitrate, FEC, expected loss, DTX); each setter clamps its value
/// to libopus's range and applies it at once. Not thread-safe: one owner encodes.
public final class OpusEncoder {
    public let sampleRate: Int32
    public let channels: Int32
    public let frameDuration: OpusFrameDuration
    /// Samples per channel `encode` takes.
    public let samplesPerFrame: Int
    /// The settings in force now (kept up to date by the setters below).
    public private(set) var configuration: OpusEncoderConfiguration
    private let handle: OpaquePointer

    /// A VoIP encoder with 20 ms frames (the signature Parley has used since issue 3).
    public convenience init(sampleRate: Int32 = 48_000, channels: Int32 = 1, bitrate: Int32 = 32_000) throws(ParleyError) {
        try self.init(configuration: OpusEncoderConfiguration(sampleRate: sampleRate, channels: channels, bitrate: bitrate))
    }

    public init(configuration: OpusEncoderConfiguration) throws(ParleyError) {
        guard configuration.channels == 1 || configuration.channels == 2 else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus: \(configuration.channels) channels")
        }
        var err: Int32 = 0
        guard let h = opus_encoder_create(configuration.sampleRate, configuration.channels,
                                          configuration.application.value, &err), err == OPUS_OK else {
            throw OpusCodecError.error("opus_encoder_create", err)
        }
        handle = h
        sampleRate = configuration.sampleRate
        channels = configuration.channels
        frameDuration = configuration.frameDuration
        samplesPerFrame = configuration.samplesPerFrame
        self.configuration = configuration
        _ = parley_opus_set_vbr(h, configuration.variableBitrate ? 1 : 0)
        _ = parley_opus_set_signal(h, configuration.signal.value)
        apply()
    }

    deinit { opus_encoder_destroy(handle) }

    /// Sets every runtime setting from `configuration` after clamping it.
    private func apply() {
        configuration.complexity = min(max(configuration.complexity, 0), 10)
        configuration.expectedPacketLossPercent = min(max(configuration.expectedPacketLossPercent, 0), 100)
        _ = parley_opus_set_bitrate(handle, configuration.effectiveBitrate)
        _ = parley_opus_set_complexity(handle, configuration.complexity)
        _ = parley_opus_set_inband_fec(handle, configuration.inbandFEC ? 1 : 0)
        _ = parley_opus_set_packet_loss_perc(handle, configuration.expectedPacketLossPercent)
        _ = parley_opus_set_dtx(handle, configuration.dtx ? 1 : 0)
    }

    /// Requested bitrate in bits per second; the encoder uses `effectiveBitrate`.
    public var bitrate: Int32 {
        get { configuration.bitrate }
        set {
            configuration.bitrate = newValue
            _ = parley_opus_set_bitrate(handle, configuration.effectiveBitrate)
        }
    }

    /// The far end's `maxaveragebitrate` cap (RFC 7587 §6.1); nil for none.
    public var maxAverageBitrate: Int32? {
        get { configuration.maxAverageBitrate }
        set {
            configuration.maxAverageBitrate = newValue
            _ = parley_opus_set_bitrate(handle, configuration.effectiveBitrate)
        }
    }

    /// The bitrate libopus is set to: `bitrate` capped by `maxAverageBitrate`.
    public var effectiveBitrate: Int32 { configuration.effectiveBitrate }

    /// 0…10.
    public var complexity: Int32 {
        get { configuration.complexity }
        set {
            configuration.complexity = min(max(newValue, 0), 10)
            _ = parley_opus_set_complexity(handle, configuration.complexity)
        }
    }

    /// In-band FEC (LBRR) on or off.
    public var inbandFEC: Bool {
        get { configuration.inbandFEC }
        set {
            configuration.inbandFEC = newValue
            _ = parley_opus_set_inband_fec(handle, newValue ? 1 : 0)
        }
    }

    /// Expected loss 0…100 %, which sizes the FEC the encoder adds.
    public var expectedPacketLossPercent: Int32 {
        get { configuration.expectedPacketLossPercent }
        set {
            configuration.expectedPacketLossPercent = min(max(newValue, 0), 100)
            _ = parley_opus_set_packet_loss_perc(handle, configuration.expectedPacketLossPercent)
        }
    }

    /// Discontinuous transmission on or off.
    public var dtx: Bool {
        get { configuration.dtx }
        set {
            configuration.dtx = newValue
            _ = parley_opus_set_dtx(handle, newValue ? 1 : 0)
        }
    }

    /// The encoder's lookahead in samples per channel (the codec delay a decoder output lags by).
    public var lookahead: Int {
        var v: Int32 = 0
        _ = parley_opus_get_lookahead(handle, &v)
        return Int(v)
    }

    /// True while DTX is suppressing frames (the last packet was a DTX frame).
    public var isInDTX: Bool {
        var v: Int32 = 0
        return parley_opus_get_in_dtx(handle, &v) == OPUS_OK && v != 0
    }

    /// Forgets the signal history (a new talk, not a new configuration).
    public func reset() { _ = parley_opus_encoder_reset(handle) }

    /// Encodes one frame (`samplesPerFrame × channels` interleaved samples) into `output`; returns the
    /// packet's length. With DTX on, a length of 1 or 2 is a DTX frame that need not be sent.
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<UInt8>) throws(ParleyError) -> Int {
        guard let input = pcm.baseAddress, let out = output.baseAddress, !output.isEmpty else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus_encode: empty buffer")
        }
        guard pcm.count == samplesPerFrame * Int(channels) else {
            throw ParleyError(.mediaNoSupportedCodec,
                              reason: "opus_encode: \(pcm.count) samples, expected \(samplesPerFrame * Int(channels))")
        }
        let n = opus_encode(handle, input, Int32(samplesPerFrame), out, Int32(clamping: output.count))
        guard n >= 0 else { throw OpusCodecError.error("opus_encode", n) }
        return Int(n)
    }
}
