import ParleyAudio

/// The codec a call leg negotiated, as the media player and the recorder see it. The adapter from
/// the transport maps its own codec type onto this one.
public enum CallAudioCodec: String, Hashable, Sendable, CaseIterable {
    /// RFC 7587: 48 kHz RTP clock, 20 ms frames of 960 samples.
    case opus
    /// G.711 µ-law (RFC 3551 §4.5.14): 8 kHz, 20 ms frames of 160 samples.
    case pcmu
    /// G.711 A-law: 8 kHz, 20 ms frames of 160 samples.
    case pcma

    /// The RTP clock rate: the unit of `samples` handed to a `MediaFrameSink`.
    public var clockRate: Int { kind.clockRate }

    /// Samples (at `clockRate`) in one 20 ms frame.
    public var samplesPerFrame: Int { clockRate / 50 }

    var kind: AudioCodecKind {
        switch self {
        case .opus: .opus
        case .pcmu: .pcmu
        case .pcma: .pcma
        }
    }
}

/// Where the media player sends encoded frames: one RTP payload per 20 ms per session. The server's
/// media transport implements it (it adds the RTP header, advancing the timestamp by `samples`).
/// Called on the media clock's thread; implementations must not block.
public protocol MediaFrameSink: Sendable {
    func play(_ payload: [UInt8], samples: Int, to session: String)
}
