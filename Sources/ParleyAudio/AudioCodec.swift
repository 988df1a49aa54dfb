import ParleyCore

/// The audio codecs Parley negotiates (RFC 7587 Opus; RFC 3551 PCMU and PCMA).
public enum AudioCodecKind: String, Sendable, CaseIterable {
    case opus, pcmu, pcma

    /// RTP clock rate: 48 kHz for Opus whatever its internal bandwidth (RFC 7587 §4.1), 8 kHz for G.711.
    public var clockRate: Int { self == .opus ? 48_000 : 8_000 }
}

/// Turns frames of interleaved 16-bit PCM at `sampleRate` into RTP payloads.
public protocol AudioEncoder: AnyObject {
    var kind: AudioCodecKind { get }
    /// PCM rate the encoder takes (48 000 for Opus here, 8 000 for G.711).
    var sampleRate: Int { get }
    var channels: Int { get }
    /// Encodes one frame (`frameSamples × channels` samples) into `output`; returns the payload length.
    func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<UInt8>) throws(ParleyError) -> Int
}

/// Turns RTP payloads back into interleaved 16-bit PCM at `sampleRate`, and conceals losses.
public protocol AudioDecoder: AnyObject {
    var kind: AudioCodecKind { get }
    var sampleRate: Int { get }
    var channels: Int { get }
    /// Samples per channel the payload decodes to, or nil when the payload is malformed.
    func frameSamples(in payload: UnsafeBufferPointer<UInt8>) -> Int?
    /// Decodes one payload into `output`; returns samples per channel written.
    func decode(_ payload: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int
    /// Writes `samplesPerChannel` of loss concealment (the codec's PLC, or a faded repeat) into `output`.
    func conceal(samplesPerChannel: Int, into output: UnsafeMutableBufferPointer<Int16>) -> Int
    /// Recovers the frame before `nextPayload` from the forward error correction inside it
    /// (Opus LBRR, RFC 6716 §2.1.7); nil when the payload carries none or the codec has no FEC.
    func recoverFromFEC(in nextPayload: UnsafeBufferPointer<UInt8>, samplesPerChannel: Int,
                        into output: UnsafeMutableBufferPointer<Int16>) -> Int?
}
