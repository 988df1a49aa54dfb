import AudioCore

/// What an `AudioEngine` sends and receives, as negotiated in SDP: the send stream's settings, the
/// jitter-buffer bounds and the RTP identity of the outgoing stream. The payload types and the
/// channel count in `send` apply to both directions (the answerer reuses the offerer's numbers,
/// RFC 3264 §6.1, as browsers do).
public struct AudioEngineConfiguration: Sendable, Equatable {
    /// The codec and its payload types (expected from the far end too), RED, `telephone-event`
    /// (nil sends digits as in-band tones and ignores received events), the encoder's settings and
    /// the first RTP timestamp. Opus in-band FEC follows the far end's loss reports by default.
    public var send: AudioSendStreamConfiguration
    /// Bounds and start of the jitter buffer's target delay, in milliseconds.
    public var minimumJitterBufferDelayMs: Int
    public var maximumJitterBufferDelayMs: Int
    public var initialJitterBufferDelayMs: Int
    /// SSRC of the outgoing stream (random by default, RFC 3550 §8.1). A transport that numbers
    /// packets itself may ignore it and the sequence numbers.
    public var ssrc: UInt32
    /// Sequence number of the first outgoing packet (random by default, RFC 3550 §5.1).
    public var initialSequenceNumber: UInt16

    /// A configuration around given send settings; in a real session `send.initialTimestamp`
    /// should be random (RFC 3550 §5.1), as the other initializer makes it.
    public init(send: AudioSendStreamConfiguration,
                minimumJitterBufferDelayMs: Int = 20, maximumJitterBufferDelayMs: Int = 400,
                initialJitterBufferDelayMs: Int = 20, ssrc: UInt32 = .random(in: 1...UInt32.max),
                initialSequenceNumber: UInt16 = .random(in: 0...UInt16.max)) {
        self.send = send
        self.minimumJitterBufferDelayMs = minimumJitterBufferDelayMs
        self.maximumJitterBufferDelayMs = maximumJitterBufferDelayMs
        self.initialJitterBufferDelayMs = initialJitterBufferDelayMs
        self.ssrc = ssrc
        self.initialSequenceNumber = initialSequenceNumber
    }

    /// The send settings spelled out (see `AudioSendStreamConfiguration` for each), by default
    /// Opus mono at 32 kbit/s in 20 ms frames from a random SSRC, sequence number and timestamp.
    public init(codec: AudioCodecKind = .opus, payloadType: UInt8? = nil, redPayloadType: UInt8? = nil,
                redDistance: Int = 2, adaptiveRED: Bool = false, telephoneEventPayloadType: UInt8? = nil, channels: Int = 1,
                frameMilliseconds: Int = 20, bitrate: Int = AudioSendStreamConfiguration().bitrate, maxAverageBitrate: Int? = nil,
                complexity: Int = 9, dtx: Bool = false, fec: OpusFECController.Policy = .adaptive,
                minimumJitterBufferDelayMs: Int = 20, maximumJitterBufferDelayMs: Int = 400,
                initialJitterBufferDelayMs: Int = 20, ssrc: UInt32 = .random(in: 1...UInt32.max),
                initialSequenceNumber: UInt16 = .random(in: 0...UInt16.max),
                initialTimestamp: UInt32 = .random(in: 0...UInt32.max)) {
        let send = AudioSendStreamConfiguration(
            codec: codec, payloadType: payloadType, redPayloadType: redPayloadType, redDistance: redDistance,
            adaptiveRED: adaptiveRED,
            channels: channels, frameMilliseconds: frameMilliseconds, bitrate: bitrate,
            maxAverageBitrate: maxAverageBitrate, complexity: complexity, dtx: dtx, fec: fec,
            initialTimestamp: initialTimestamp, telephoneEventPayloadType: telephoneEventPayloadType)
        self.init(send: send, minimumJitterBufferDelayMs: minimumJitterBufferDelayMs,
                  maximumJitterBufferDelayMs: maximumJitterBufferDelayMs,
                  initialJitterBufferDelayMs: initialJitterBufferDelayMs, ssrc: ssrc,
                  initialSequenceNumber: initialSequenceNumber)
    }

    /// The receive stream's settings for a device playing in `outputFormat`.
    public func receiveStreamConfiguration(outputFormat: AudioFormat) -> AudioReceiveStreamConfiguration {
        AudioReceiveStreamConfiguration(
            payloadType: send.codecPayloadType, redPayloadType: send.redPayloadType, outputFormat: outputFormat,
            minimumDelayMs: minimumJitterBufferDelayMs, maximumDelayMs: maximumJitterBufferDelayMs,
            initialDelayMs: initialJitterBufferDelayMs)
    }
}
