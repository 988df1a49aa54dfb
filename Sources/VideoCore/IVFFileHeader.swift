/// The 32-byte header of an IVF file (libvpx's container; https://wiki.multimedia.cx/index.php/IVF,
/// libvpx ivfenc.c): `DKIF`, version 0, header size 32, the codec's FourCC, width and height,
/// the time base as rate and scale, the frame count, and 4 unused bytes; little-endian. Pure.
public struct IVFFileHeader: Sendable, Equatable {
    public static let size = 32
    static let signature = Array("DKIF".utf8)
    public static let vp8FourCC = Array("VP80".utf8)

    /// FourCC of the codec (`VP80`).
    public var fourCC: [UInt8]
    public var width: Int
    public var height: Int
    /// Timestamps count `scale`/`rate` seconds (libvpx writes rate 90000 or the frame rate, scale 1).
    public var timebaseRate: UInt32
    public var timebaseScale: UInt32
    /// Frames in the file; 0 when the writer did not know (readers read to the end).
    public var frameCount: UInt32

    public init(width: Int, height: Int, timebaseRate: UInt32 = 90_000, timebaseScale: UInt32 = 1, frameCount: UInt32 = 0) {
        fourCC = Self.vp8FourCC
        self.width = width
        self.height = height
        self.timebaseRate = timebaseRate
        self.timebaseScale = timebaseScale
        self.frameCount = frameCount
    }

    /// Parses the first 32 bytes; throws on another signature, version, header size or codec
    /// than VP8, a zero time base, or a size outside `VideoLimits`.
    public init(parsing bytes: ArraySlice<UInt8>) throws(VideoContainerError) {
        guard bytes.count >= Self.size else { throw .truncated }
        let b = bytes.startIndex
        guard bytes[b..<(b + 4)].elementsEqual(Self.signature) else { throw .badSignature }
        let version = LittleEndian.u16(bytes, b + 4), headerSize = LittleEndian.u16(bytes, b + 6)
        guard version == 0 else { throw .unsupportedIVF("version \(version)") }
        guard headerSize == UInt16(Self.size) else { throw .unsupportedIVF("header size \(headerSize)") }
        fourCC = Array(bytes[(b + 8)..<(b + 12)])
        guard fourCC == Self.vp8FourCC else { throw .unsupportedIVF("codec \(String(decoding: fourCC, as: UTF8.self))") }
        width = Int(LittleEndian.u16(bytes, b + 12))
        height = Int(LittleEndian.u16(bytes, b + 14))
        guard VideoLimits.accepts(width: width, height: height) else { throw .tooLarge("picture \(width)x\(height)") }
        timebaseRate = LittleEndian.u32(bytes, b + 16)
        timebaseScale = LittleEndian.u32(bytes, b + 20)
        guard timebaseRate > 0, timebaseScale > 0 else { throw .invalidParameter("time base") }
        frameCount = LittleEndian.u32(bytes, b + 24)
    }

    /// The frame rate the time base suggests when it is a frame rate (libvpx writes rate/scale
    /// = fps), or `fallback` when it is a clock (above 1000 ticks a second).
    public func frameRate(fallback: FrameRate) -> FrameRate {
        FrameRate(numerator: Int(timebaseRate), denominator: Int(timebaseScale)) ?? fallback
    }

    public func serialize(into out: inout [UInt8]) {
        out += Self.signature
        LittleEndian.append(UInt16(0), to: &out)
        LittleEndian.append(UInt16(Self.size), to: &out)
        out += fourCC.count == 4 ? fourCC : Self.vp8FourCC
        LittleEndian.append(UInt16(clamping: width), to: &out)
        LittleEndian.append(UInt16(clamping: height), to: &out)
        LittleEndian.append(timebaseRate, to: &out)
        LittleEndian.append(timebaseScale, to: &out)
        LittleEndian.append(frameCount, to: &out)
        LittleEndian.append(UInt32(0), to: &out)
    }

    public var serializedSize: Int { Self.size }
}
