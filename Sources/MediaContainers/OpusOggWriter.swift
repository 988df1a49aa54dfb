import VideoCore

/// An Ogg Opus file (RFC 7845) from Opus packets as they arrive over RTP: the identification
/// header (OpusHead), the comment header (OpusTags), then one packet per page with its granule
/// position in 48 kHz samples. Readable by `ffprobe`, `opusinfo` and browsers.
public struct OpusOggWriter: Sendable {
    private var ogg: OggWriter
    private var granule: UInt64 = 0
    public let channels: UInt8
    /// Samples the decoder skips at the start (RFC 7845 §4.2; libopus' encoder delay).
    public let preSkip: UInt16

    public init(serialNumber: UInt32, channels: UInt8 = 1, preSkip: UInt16 = 312) {
        ogg = OggWriter(serialNumber: serialNumber)
        self.channels = channels
        self.preSkip = preSkip
    }

    /// OpusHead and OpusTags, each on its own page (RFC 7845 §3).
    public mutating func header(vendor: String = "parley", inputSampleRate: UInt32 = 48_000) -> [UInt8] {
        var head: [UInt8] = Array("OpusHead".utf8) + [1, channels]
        head += [UInt8(preSkip & 0xFF), UInt8(preSkip >> 8)]
        for i in 0..<4 { head.append(UInt8(truncatingIfNeeded: inputSampleRate >> (8 * UInt32(i)))) }
        head += [0, 0, 0]  // output gain 0, channel mapping family 0
        var tags: [UInt8] = Array("OpusTags".utf8)
        let vendorBytes = Array(vendor.utf8)
        for i in 0..<4 { tags.append(UInt8(truncatingIfNeeded: UInt32(vendorBytes.count) >> (8 * UInt32(i)))) }
        tags += vendorBytes
        tags += [0, 0, 0, 0]  // no user comments
        return ogg.pages(for: head, granulePosition: 0) + ogg.pages(for: tags, granulePosition: 0)
    }

    /// One Opus packet lasting `samples` (at 48 kHz; 960 for 20 ms). An empty packet (a gap the
    /// recorder fills) still advances time.
    public mutating func packet(_ packet: [UInt8], samples: Int, isLast: Bool = false) -> [UInt8] {
        granule += UInt64(samples)
        return ogg.pages(for: packet, granulePosition: granule, isLast: isLast)
    }
}

/// VP8 frames in an IVF file (libvpx's container: a 32-byte "DKIF" header, then each frame with
/// a 12-byte header of its size and timestamp). `ffmpeg -i in.ivf -c copy out.webm` remuxes it.
public struct IVFWriter: Sendable {
    public let width: UInt16
    public let height: UInt16
    /// Timestamps count in this rate (90 kHz: RTP's video clock).
    public let timebase: UInt32

    public init(width: UInt16, height: UInt16, timebase: UInt32 = 90_000) {
        self.width = width
        self.height = height
        self.timebase = timebase
    }

    /// The file header (VideoCore's `IVFFileHeader`); `frameCount` may be 0 (players read to the end).
    public func header(frameCount: UInt32 = 0) -> [UInt8] {
        var out: [UInt8] = []
        IVFFileHeader(width: Int(width), height: Int(height), timebaseRate: timebase, frameCount: frameCount).serialize(into: &out)
        return out
    }

    /// One frame with its timestamp (in `timebase` units), behind its `IVFFrameHeader`.
    public func frame(_ data: [UInt8], timestamp: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(IVFFrameHeader.size + data.count)
        IVFFrameHeader(frameSize: data.count, timestamp: timestamp).serialize(into: &out)
        return out + data
    }
}
