/// What an `AudioSendStream` sends: the codec, its RTP payload types and encoder settings.
public struct AudioSendStreamConfiguration: Sendable, Equatable {
    public var codec: AudioCodecKind
    /// The codec's payload type; nil for the usual one (Opus 111 as browsers offer it, PCMU 0, PCMA 8).
    public var payloadType: UInt8?
    /// The RED payload type (RFC 2198) when the peer negotiated `red/48000/2`, e.g. 63; nil sends plain payloads.
    public var redPayloadType: UInt8?
    /// How many previous frames each RED packet repeats, 0…3 (`REDEncoder.maxDistance`); with
    /// `adaptiveRED`, the distance before the first loss report.
    public var redDistance: Int
    /// Follow the far end's loss reports (`REDDistanceController`): no redundancy on a clean path,
    /// up to three frames under heavy loss. Packets without redundancy go out as plain codec payloads.
    public var adaptiveRED: Bool
    /// Channels the codec codes: 1, or 2 for stereo Opus. Capture audio is mixed to this.
    public var channels: Int
    /// 10, 20, 40 or 60.
    public var frameMilliseconds: Int
    /// Opus target bitrate in bits per second; 40 kbit/s by default (docs/quality.md: PESQ-WB ≥ 4.0
    /// on male and female speech, where 32 kbit/s scores 3.8 on the male voice).
    public var bitrate: Int
    /// The far end's Opus `maxaveragebitrate` (RFC 7587 §6.1).
    public var maxAverageBitrate: Int?
    /// Opus complexity 0…10.
    public var complexity: Int
    /// Opus discontinuous transmission: silent frames are not sent.
    public var dtx: Bool
    /// Opus in-band FEC policy.
    public var fec: OpusFECController.Policy
    /// RTP timestamp of the first frame (random in a real session, RFC 3550 §5.1).
    public var initialTimestamp: UInt32
    /// The negotiated `telephone-event` payload type at the codec's clock (RFC 4733 §7.1), e.g. 126
    /// for telephone-event/48000; nil sends digits as in-band tones instead.
    public var telephoneEventPayloadType: UInt8?

    public init(codec: AudioCodecKind = .opus, payloadType: UInt8? = nil, redPayloadType: UInt8? = nil,
                redDistance: Int = 2, adaptiveRED: Bool = false, channels: Int = 1, frameMilliseconds: Int = 20, bitrate: Int = 40_000,
                maxAverageBitrate: Int? = nil, complexity: Int = 9, dtx: Bool = false,
                fec: OpusFECController.Policy = .adaptive, initialTimestamp: UInt32 = 0,
                telephoneEventPayloadType: UInt8? = nil) {
        self.codec = codec
        self.payloadType = payloadType
        self.redPayloadType = redPayloadType
        self.redDistance = redDistance
        self.adaptiveRED = adaptiveRED
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
        self.bitrate = bitrate
        self.maxAverageBitrate = maxAverageBitrate
        self.complexity = complexity
        self.dtx = dtx
        self.fec = fec
        self.initialTimestamp = initialTimestamp
        self.telephoneEventPayloadType = telephoneEventPayloadType
    }

    /// The default payload type of a codec: Opus 111 (dynamic, as browsers number it), PCMU 0, PCMA 8 (RFC 3551).
    public static func defaultPayloadType(for codec: AudioCodecKind) -> UInt8 {
        switch codec {
        case .opus: 111
        case .pcmu: 0
        case .pcma: 8
        }
    }

    /// The payload type the codec's packets (and RED's blocks) carry.
    public var codecPayloadType: UInt8 { payloadType ?? Self.defaultPayloadType(for: codec) }
}

/// One RTP payload an `AudioSendStream` emits. The owner puts it in an RTP packet with these
/// header fields (RFC 3550 §5.1) and its own SSRC and sequence number.
public struct AudioSendPacket {
    public let payloadType: UInt8
    public let timestamp: UInt32
    /// Set on the first packet of a talkspurt: the stream's first, and the first after DTX silence
    /// or a pause (RFC 3551 §4.1, RFC 7587 §4.2).
    public let marker: Bool
    /// The payload bytes, in the stream's own buffer: valid only during the callback.
    public let payload: UnsafeBufferPointer<UInt8>
    /// Redundant blocks inside a RED payload (0 for plain payloads or a RED packet with only its primary).
    public let redundantBlocks: Int
}
