import AudioCore

/// Settings of an `AudioReceiveStream`.
public struct AudioReceiveStreamConfiguration: Sendable, Equatable {
    /// The codec's RTP payload type (PCMU 0, PCMA 8, Opus dynamic, e.g. 111).
    public var payloadType: UInt8
    /// The negotiated RED payload type (RFC 2198, "red/48000" in SDP), if any.
    public var redPayloadType: UInt8?
    /// What `read(into:at:)` hands out: rate, channels (the device's render format).
    public var outputFormat: AudioFormat
    /// Bounds and start of the jitter buffer's target delay.
    public var minimumDelayMs: Int
    public var maximumDelayMs: Int
    public var initialDelayMs: Int
    /// Slots of the jitter buffer (packets and redundant blocks held at once).
    public var jitterBufferCapacity: Int

    public init(payloadType: UInt8, redPayloadType: UInt8? = nil, outputFormat: AudioFormat = AudioFormat(),
                minimumDelayMs: Int = 20, maximumDelayMs: Int = 400, initialDelayMs: Int = 20,
                jitterBufferCapacity: Int = 128) {
        self.payloadType = payloadType
        self.redPayloadType = redPayloadType
        self.outputFormat = outputFormat
        self.minimumDelayMs = minimumDelayMs
        self.maximumDelayMs = maximumDelayMs
        self.initialDelayMs = initialDelayMs
        self.jitterBufferCapacity = jitterBufferCapacity
    }
}
