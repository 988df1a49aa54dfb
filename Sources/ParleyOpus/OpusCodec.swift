import COpus
import ParleyCore

/// The linked libopus.
public enum OpusLibrary {
    /// The linked libopus version, e.g. `libopus 1.3.1`.
    public static var version: String { String(cString: opus_get_version_string()) }
}

/// An Opus encoder (RFC 6716) for 48 kHz PCM in 10, 20, 40 or 60 ms frames.
/// Not thread-safe: one owner encodes.
public final class OpusEncoder {
    public let sampleRate: Int32
    public let channels: Int32
    private let handle: OpaquePointer

    public init(sampleRate: Int32 = 48_000, channels: Int32 = 1, bitrate: Int32 = 32_000) throws(ParleyError) {
        var err: Int32 = 0
        guard let h = opus_encoder_create(sampleRate, channels, OPUS_APPLICATION_VOIP, &err), err == OPUS_OK else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus_encoder_create: \(OpusCodecError.text(err))")
        }
        handle = h
        self.sampleRate = sampleRate
        self.channels = channels
        _ = parley_opus_set_bitrate(h, bitrate)
    }

    deinit { opus_encoder_destroy(handle) }

    /// Encodes one frame of interleaved samples into `output`; returns the packet's length.
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<UInt8>) throws(ParleyError) -> Int {
        guard let input = pcm.baseAddress, let out = output.baseAddress, !pcm.isEmpty else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus_encode: empty buffer")
        }
        let frameSize = Int32(pcm.count) / channels
        let n = opus_encode(handle, input, frameSize, out, Int32(output.count))
        guard n >= 0 else { throw ParleyError(.mediaNoSupportedCodec, reason: "opus_encode: \(OpusCodecError.text(n))") }
        return Int(n)
    }
}

/// An Opus decoder producing interleaved 16-bit PCM. Not thread-safe: one owner decodes.
public final class OpusDecoder {
    public let sampleRate: Int32
    public let channels: Int32
    private let handle: OpaquePointer

    public init(sampleRate: Int32 = 48_000, channels: Int32 = 1) throws(ParleyError) {
        var err: Int32 = 0
        guard let h = opus_decoder_create(sampleRate, channels, &err), err == OPUS_OK else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus_decoder_create: \(OpusCodecError.text(err))")
        }
        handle = h
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { opus_decoder_destroy(handle) }

    /// Decodes one packet into `output` (samples per channel × channels); returns samples per channel.
    /// An empty packet asks the decoder for loss concealment.
    public func decode(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        guard let out = output.baseAddress else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus_decode: empty output buffer")
        }
        let capacity = Int32(output.count) / channels
        let n = opus_decode(handle, packet.isEmpty ? nil : packet.baseAddress, Int32(packet.count), out, capacity, 0)
        guard n >= 0 else { throw ParleyError(.mediaNoSupportedCodec, reason: "opus_decode: \(OpusCodecError.text(n))") }
        return Int(n)
    }
}

enum OpusCodecError {
    static func text(_ code: Int32) -> String { String(cString: opus_strerror(code)) }
}
