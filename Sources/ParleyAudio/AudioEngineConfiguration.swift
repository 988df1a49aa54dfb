import AudioCore

/// What an `AudioEngine` sends and receives, as negotiated in SDP: the codec and its payload
/// types, the encoder's settings, the jitter-buffer bounds and the RTP identity of the outgoing
/// stream. The payload types apply to both directions (the answerer reuses the offerer's numbers,
/// RFC 3264 §6.1, as browsers do).
public struct AudioEngineConfiguration: Sendable, Equatable {
    /// The negotiated codec: Opus (48 kHz) or PCMU/PCMA (8 kHz).
    public var codec: AudioCodecKind
    /// The codec's payload type; nil for the usual one (Opus 111, PCMU 0, PCMA 8).
    public var payloadType: UInt8?
    /// The RED payload type (RFC 2198, `red/48000/2`) when the peer offered it; nil sends and
    /// expects plain payloads.
    public var redPayloadType: UInt8?
    /// Earlier frames each RED packet repeats: 1 or 2.
    public var redDistance: Int
    /// The `telephone-event` payload type at the codec's clock (RFC 4733 §7.1), e.g. 126 for
    /// `telephone-event/48000`; nil sends digits as in-band tones and ignores received events.
    public var telephoneEventPayloadType: UInt8?
    /// Channels coded and decoded: 1, or 2 for stereo Opus.
    public var channels: Int
    /// Frame length in milliseconds: 10, 20, 40 or 60.
    public var frameMilliseconds: Int
    /// Opus target bitrate, bits per second.
    public var bitrate: Int
    /// The far end's Opus `maxaveragebitrate` (RFC 7587 §6.1), bits per second.
    public var maxAverageBitrate: Int?
    /// Opus complexity 0…10.
    public var complexity: Int
    /// Opus discontinuous transmission.
    public var dtx: Bool
    /// Opus in-band FEC: by default it follows the far end's loss reports (`reportRemoteLoss`).
    public var fec: OpusFECController.Policy
    /// Bounds and start of the jitter buffer's target delay, in milliseconds.
    public var minimumJitterBufferDelayMs: Int
    public var maximumJitterBufferDelayMs: Int
    public var initialJitterBufferDelayMs: Int
    /// SSRC of the outgoing stream (random by default, RFC 3550 §8.1). A transport that numbers
    /// packets itself may ignore it and the sequence numbers.
    public var ssrc: UInt32
    /// Sequence number of the first outgoing packet (random by default, RFC 3550 §5.1).
    public var initialSequenceNumber: UInt16
    /// RTP timestamp of the first outgoing frame (random by default, RFC 3550 §5.1).
    public var initialTimestamp: UInt32

    public init(codec: AudioCodecKind = .opus, payloadType: UInt8? = nil, redPayloadType: UInt8? = nil,
                redDistance: Int = 2, telephoneEventPayloadType: UInt8? = nil, channels: Int = 1,
                frameMilliseconds: Int = 20, bitrate: Int = 32_000, maxAverageBitrate: Int? = nil,
                complexity: Int = 9, dtx: Bool = false, fec: OpusFECController.Policy = .adaptive,
                minimumJitterBufferDelayMs: Int = 20, maximumJitterBufferDelayMs: Int = 400,
                initialJitterBufferDelayMs: Int = 40, ssrc: UInt32 = .random(in: 1...UInt32.max),
                initialSequenceNumber: UInt16 = .random(in: 0...UInt16.max),
                initialTimestamp: UInt32 = .random(in: 0...UInt32.max)) {
        self.codec = codec
        self.payloadType = payloadType
        self.redPayloadType = redPayloadType
        self.redDistance = redDistance
        self.telephoneEventPayloadType = telephoneEventPayloadType
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
        self.bitrate = bitrate
        self.maxAverageBitrate = maxAverageBitrate
        self.complexity = complexity
        self.dtx = dtx
        self.fec = fec
        self.minimumJitterBufferDelayMs = minimumJitterBufferDelayMs
        self.maximumJitterBufferDelayMs = maximumJitterBufferDelayMs
        self.initialJitterBufferDelayMs = initialJitterBufferDelayMs
        self.ssrc = ssrc
        self.initialSequenceNumber = initialSequenceNumber
        self.initialTimestamp = initialTimestamp
    }

    /// The payload type the codec's packets carry.
    public var codecPayloadType: UInt8 { payloadType ?? AudioSendStreamConfiguration.defaultPayloadType(for: codec) }

    /// The send stream's settings.
    public var sendStreamConfiguration: AudioSendStreamConfiguration {
        AudioSendStreamConfiguration(
            codec: codec, payloadType: payloadType, redPayloadType: redPayloadType, redDistance: redDistance,
            channels: channels, frameMilliseconds: frameMilliseconds, bitrate: bitrate,
            maxAverageBitrate: maxAverageBitrate, complexity: complexity, dtx: dtx,
            fec: codec == .opus ? fec : .off, initialTimestamp: initialTimestamp,
            telephoneEventPayloadType: telephoneEventPayloadType)
    }

    /// The receive stream's settings for a device playing in `outputFormat`.
    public func receiveStreamConfiguration(outputFormat: AudioFormat) -> AudioReceiveStreamConfiguration {
        AudioReceiveStreamConfiguration(
            payloadType: codecPayloadType, redPayloadType: redPayloadType, outputFormat: outputFormat,
            minimumDelayMs: minimumJitterBufferDelayMs, maximumDelayMs: maximumJitterBufferDelayMs,
            initialDelayMs: initialJitterBufferDelayMs)
    }
}
