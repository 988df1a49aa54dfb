import COpus

/// Facts read from an Opus packet without decoding it (RFC 6716 §3.1, the TOC byte and framing).
public enum OpusPacket {
    /// The coding mode a TOC byte's configuration selects (RFC 6716 §3.1, Table 2).
    public enum Mode: Sendable, Equatable {
        case silk, hybrid, celt
    }

    /// Samples per channel the packet decodes to at `sampleRate`, or nil when it is malformed.
    public static func samplesPerChannel(in packet: UnsafeBufferPointer<UInt8>, sampleRate: Int32 = 48_000) -> Int? {
        guard let p = packet.baseAddress, !packet.isEmpty else { return nil }
        let n = opus_packet_get_nb_samples(p, Int32(clamping: packet.count), sampleRate)
        return n > 0 ? Int(n) : nil
    }

    /// The packet's mode from its TOC byte, or nil for an empty packet.
    public static func mode(of packet: UnsafeBufferPointer<UInt8>) -> Mode? {
        guard let toc = packet.first else { return nil }
        switch toc >> 3 {
        case 0...11: return .silk
        case 12...15: return .hybrid
        default: return .celt
        }
    }

    /// Channels coded in the packet (the TOC's stereo flag).
    public static func channels(in packet: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let toc = packet.first else { return nil }
        return toc & 0x04 != 0 ? 2 : 1
    }

    /// True when the packet carries in-band FEC (LBRR) for the frame before it. The SILK layer codes
    /// each channel's per-frame VAD flags and then its LBRR flag as the first bits of the first frame
    /// (RFC 6716 §4.2.3–4.2.4), each with probability ½, so they are the leading bits of that frame.
    public static func hasFEC(_ packet: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = packet.baseAddress, let mode = mode(of: packet), mode != .celt else { return false }
        let frameSamples = Int(opus_packet_get_samples_per_frame(p, 48_000))
        let silkFrames = frameSamples > 960 ? frameSamples / 960 : 1
        let stereo = channels(in: packet) == 2
        return withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 48) { frames in
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: 48) { sizes in
                frames.initialize(repeating: nil)
                sizes.initialize(repeating: 0)
                guard let sizeBase = sizes.baseAddress else { return false }
                let count = opus_packet_parse(p, Int32(clamping: packet.count), nil, frames.baseAddress,
                                              sizeBase, nil)
                guard count > 0, sizes[0] > 0, let first = frames[0]?.pointee else { return false }
                var lbrr = (first >> (7 - silkFrames)) & 1 != 0
                if stereo { lbrr = lbrr || (first >> (6 - 2 * silkFrames)) & 1 != 0 }
                return lbrr
            }
        }
    }
}
