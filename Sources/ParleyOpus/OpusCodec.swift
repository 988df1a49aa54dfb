import COpus
import ParleyCore

/// The linked libopus.
public enum OpusLibrary {
    /// The linked libopus version, e.g. `libopus 1.3.1`.
    public static var version: String { String(cString: opus_get_version_string()) }
}

/// Opus frame durations Parley sends (RFC 6716 §2.1.4 also allows 2.5 and 5 ms, which WebRTC does not use).
public enum OpusFrameDuration: Int, Sendable, CaseIterable {
    case ms10 = 10, ms20 = 20, ms40 = 40, ms60 = 60

    public var milliseconds: Int { rawValue }

    /// Samples per channel in one frame at `sampleRate`.
    public func samples(atRate sampleRate: Int) -> Int { sampleRate * rawValue / 1000 }
}

/// The encoder's intended use (`OPUS_APPLICATION_*`).
public enum OpusApplication: Sendable {
    /// Speech: favours intelligibility; the mode WebRTC uses for calls.
    case voip
    /// Music and mixed content.
    case audio
    /// Lowest delay: CELT only, no SILK (so no in-band FEC).
    case restrictedLowDelay

    var value: Int32 {
        switch self {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
    }
}

/// A hint about the input (`OPUS_SET_SIGNAL`): `.voice` keeps the encoder in SILK/hybrid modes,
/// which carry in-band FEC (LBRR).
public enum OpusSignal: Sendable {
    case auto, voice, music

    var value: Int32 {
        switch self {
        case .auto: OPUS_AUTO
        case .voice: OPUS_SIGNAL_VOICE
        case .music: OPUS_SIGNAL_MUSIC
        }
    }
}

enum OpusCodecError {
    static func text(_ code: Int32) -> String { String(cString: opus_strerror(code)) }

    static func error(_ call: String, _ code: Int32) -> ParleyError {
        ParleyError(.mediaNoSupportedCodec, reason: "\(call): \(text(code))")
    }
}
