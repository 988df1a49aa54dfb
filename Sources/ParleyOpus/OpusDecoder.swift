import COpus
import ParleyCore

/// An Opus decoder producing interleaved 16-bit PCM, with the decoder's loss concealment (PLC) and
/// recovery of a lost frame from the in-band FEC of the packet after it. Not thread-safe: one owner decodes.
public final class OpusDecoder {
    public let sampleRate: Int32
    public let channels: Int32
    private let handle: OpaquePointer

    public init(sampleRate: Int32 = 48_000, channels: Int32 = 1) throws(ParleyError) {
        guard channels == 1 || channels == 2 else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus: \(channels) channels")
        }
        var err: Int32 = 0
        guard let h = opus_decoder_create(sampleRate, channels, &err), err == OPUS_OK else {
            throw OpusCodecError.error("opus_decoder_create", err)
        }
        handle = h
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { opus_decoder_destroy(handle) }

    /// Decodes one packet into `output` (room for samples per channel × channels); returns samples
    /// per channel. An empty packet asks for loss concealment as long as `output` (see `conceal`).
    public func decode(_ packet: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        try run(packet.isEmpty ? nil : packet, frameSize: output.count / Int(channels), fec: false, into: output)
    }

    /// Recovers the frame *before* `packet` from the packet's in-band FEC (RFC 6716 §2.1.7), writing
    /// `samplesPerChannel` samples (the lost frame's duration, a multiple of 2.5 ms). Call it before
    /// decoding `packet` normally. When `packet` carries no FEC, libopus conceals instead
    /// (check `OpusPacket.hasFEC` first).
    public func decodeFEC(_ packet: UnsafeBufferPointer<UInt8>, samplesPerChannel: Int,
                          into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        guard !packet.isEmpty else { return try conceal(samplesPerChannel: samplesPerChannel, into: output) }
        return try run(packet, frameSize: samplesPerChannel, fec: true, into: output)
    }

    /// Packet loss concealment: `samplesPerChannel` samples (a multiple of 2.5 ms, at most 120 ms)
    /// that continue the signal decoded so far and fade it out over successive calls.
    public func conceal(samplesPerChannel: Int, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        try run(nil, frameSize: samplesPerChannel, fec: false, into: output)
    }

    /// Samples per channel `packet` decodes to at this decoder's rate, or nil when the packet is malformed.
    public func samplesPerChannel(in packet: UnsafeBufferPointer<UInt8>) -> Int? {
        OpusPacket.samplesPerChannel(in: packet, sampleRate: sampleRate)
    }

    /// Samples per channel of the last decode or concealment.
    public var lastPacketDuration: Int {
        var v: Int32 = 0
        _ = parley_opus_decoder_get_last_packet_duration(handle, &v)
        return Int(v)
    }

    /// Forgets the decoded history (a new stream).
    public func reset() { _ = parley_opus_decoder_reset(handle) }

    private func run(_ packet: UnsafeBufferPointer<UInt8>?, frameSize: Int, fec: Bool,
                     into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        guard let out = output.baseAddress, frameSize > 0, frameSize * Int(channels) <= output.count else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "opus_decode: output holds \(output.count) samples")
        }
        let n = opus_decode(handle, packet?.baseAddress, Int32(clamping: packet?.count ?? 0), out,
                            Int32(clamping: frameSize), fec ? 1 : 0)
        guard n >= 0 else { throw OpusCodecError.error("opus_decode", n) }
        return Int(n)
    }
}
