/// The audio codecs a session can carry, in preference order.
public enum AudioCodec: String, Sendable, Hashable, CaseIterable {
    case opus
    case pcmu = "PCMU"
    case pcma = "PCMA"

    /// RTP clock rate (RFC 7587 §4.1: Opus is always 48 kHz; RFC 3551 §4.5.14: G.711 8 kHz).
    public var clockRate: UInt32 { self == .opus ? 48_000 : 8_000 }
    /// Channels written in the rtpmap (RFC 7587 §7: `opus/48000/2`).
    public var channels: UInt16? { self == .opus ? 2 : nil }
    /// The static payload type, if any (RFC 3551 §6).
    public var staticPayloadType: UInt8? {
        switch self {
        case .opus: nil
        case .pcmu: 0
        case .pcma: 8
        }
    }
}

/// The video codecs a session can carry (forwarded as they are: Parley neither decodes nor
/// encodes video), in preference order for offers.
public enum VideoCodec: String, Sendable, Hashable, CaseIterable {
    /// RFC 7741.
    case vp8 = "VP8"
    /// RFC 9628.
    case vp9 = "VP9"
    /// RFC 6184.
    case h264 = "H264"
    /// The AV1 RTP payload format (AOMedia).
    case av1 = "AV1"

    /// Every video payload format uses a 90 kHz clock.
    public var clockRate: UInt32 { 90_000 }

    /// The codec of an rtpmap encoding name (case-insensitive, RFC 8866 §6.6).
    public init?(encodingName: String) {
        guard let codec = Self.allCases.first(where: { $0.rawValue.lowercased() == encodingName.lowercased() }) else {
            return nil
        }
        self = codec
    }
}

/// The codec one m-section negotiated.
public enum MediaCodec: Sendable, Hashable {
    case audio(AudioCodec)
    case video(VideoCodec)

    public var clockRate: UInt32 {
        switch self {
        case .audio(let codec): codec.clockRate
        case .video(let codec): codec.clockRate
        }
    }

    /// The rtpmap encoding name.
    public var encodingName: String {
        switch self {
        case .audio(let codec): codec.rawValue
        case .video(let codec): codec.rawValue
        }
    }

    public var channels: UInt16? {
        if case .audio(let codec) = self { return codec.channels }
        return nil
    }

    /// The SDP media type: `audio` or `video`.
    public var mediaType: String {
        if case .audio = self { return "audio" }
        return "video"
    }

    public var audio: AudioCodec? {
        if case .audio(let codec) = self { return codec }
        return nil
    }
}
