/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2` then space-separated parameters, each a
/// letter and a value, ending in `\n` (mjpegtools yuv4mpeg(5); https://wiki.multimedia.cx/index.php/YUV4MPEG2).
/// Only 4:2:0 8-bit pictures are accepted (I420). `X` comments are kept; unknown letters are
/// refused, as ffmpeg does. Pure: bytes in, value out.
public struct Y4MHeader: Sendable, Equatable {
    static let signature = Array("YUV4MPEG2".utf8)

    public var width: Int
    public var height: Int
    /// `F`; 25:1 when absent (ffmpeg's default).
    public var frameRate: FrameRate
    public var colorspace: Y4MColorspace
    /// `I`: `p` progressive, `t`/`b` field order, `m` mixed, `?` unknown. Kept, not interpreted.
    public var interlacing: UInt8
    /// `A`: pixel aspect ratio, 0:0 when unknown.
    public var pixelAspect: (numerator: Int, denominator: Int)
    /// `X` parameters, without the `X`; a space or newline in one is written as `_` (the format
    /// separates parameters with spaces).
    public var comments: [String]

    public init(width: Int, height: Int, frameRate: FrameRate, colorspace: Y4MColorspace = .c420jpeg) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.colorspace = colorspace
        interlacing = UInt8(ascii: "p")
        pixelAspect = (1, 1)
        comments = []
    }

    /// Parses a header line (the `\n` and anything after it are not read). Throws on a missing
    /// signature, a missing `W` or `H`, a value out of range or a colour space other than 4:2:0.
    public init(parsing bytes: ArraySlice<UInt8>) throws(VideoContainerError) {
        let line = bytes.prefix { $0 != 0x0A }
        guard line.count <= VideoLimits.maximumHeaderLine else { throw .headerTooLong(limit: VideoLimits.maximumHeaderLine) }
        guard line.starts(with: Self.signature) else { throw .badSignature }
        var width: Int?, height: Int?
        var rate: FrameRate?
        var colorspace = Y4MColorspace.c420jpeg
        var interlacing = UInt8(ascii: "?")
        var aspect = (0, 0)
        var comments: [String] = []
        let rest = line.dropFirst(Self.signature.count)
        guard rest.isEmpty || rest.first == 0x20 else { throw .badSignature }
        for field in rest.split(separator: 0x20, omittingEmptySubsequences: true) {
            let value = field.dropFirst()
            switch field.first {
            case UInt8(ascii: "W"): width = try Self.integer(value, "W")
            case UInt8(ascii: "H"): height = try Self.integer(value, "H")
            case UInt8(ascii: "F"):
                let (n, d) = try Self.ratio(value, "F")
                guard let parsed = FrameRate(numerator: n, denominator: d) else { throw .invalidParameter("F") }
                rate = parsed
            case UInt8(ascii: "A"): aspect = try Self.ratio(value, "A", allowZero: true)
            case UInt8(ascii: "I"):
                guard value.count == 1, let mode = value.first, Array("ptbm?".utf8).contains(mode) else { throw .invalidParameter("I") }
                interlacing = mode
            case UInt8(ascii: "C"):
                let name = String(decoding: value, as: UTF8.self)
                guard let parsed = Y4MColorspace(rawValue: name) else { throw .unsupportedColorspace(name) }
                colorspace = parsed
            case UInt8(ascii: "X"): comments.append(String(decoding: value, as: UTF8.self))
            default: throw .invalidParameter(String(decoding: field.prefix(1), as: UTF8.self))
            }
        }
        guard let width else { throw .missingParameter("W") }
        guard let height else { throw .missingParameter("H") }
        guard VideoLimits.accepts(width: width, height: height) else { throw .tooLarge("picture \(width)x\(height)") }
        self.width = width
        self.height = height
        self.frameRate = rate ?? FrameRate(framesPerSecond: 25)
        self.colorspace = colorspace
        self.interlacing = interlacing
        self.pixelAspect = aspect
        self.comments = comments
    }

    /// Bytes of one frame's planes (I420: luma, then the two chroma planes rounded up).
    public var frameByteCount: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }

    public var format: VideoFormat { VideoFormat(width: width, height: height, frameRate: frameRate) }

    /// The header line, `\n` included.
    public func serialize(into out: inout [UInt8]) {
        var text = "YUV4MPEG2 W\(width) H\(height) F\(frameRate.numerator):\(frameRate.denominator)"
        text += " I" + String(UnicodeScalar(interlacing)) + " A\(pixelAspect.numerator):\(pixelAspect.denominator)"
        text += " C" + colorspace.rawValue
        for comment in comments { text += " X" + String(comment.map { $0 == " " || $0 == "\n" ? "_" : $0 }) }
        out += Array(text.utf8)
        out.append(0x0A)
    }

    public var serializedSize: Int {
        var out: [UInt8] = []
        serialize(into: &out)
        return out.count
    }

    public static func == (a: Y4MHeader, b: Y4MHeader) -> Bool {
        a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.colorspace == b.colorspace
            && a.interlacing == b.interlacing && a.pixelAspect == b.pixelAspect && a.comments == b.comments
    }

    /// A decimal of 1…9 digits (no sign), so it never overflows.
    static func integer(_ digits: ArraySlice<UInt8>, _ name: String) throws(VideoContainerError) -> Int {
        guard (1...9).contains(digits.count) else { throw .invalidParameter(name) }
        var value = 0
        for d in digits {
            guard (0x30...0x39).contains(d) else { throw .invalidParameter(name) }
            value = value * 10 + Int(d - 0x30)
        }
        return value
    }

    /// `n:d`, both decimal; zero only where the spec allows it (`A0:0`, unknown).
    static func ratio(_ value: ArraySlice<UInt8>, _ name: String, allowZero: Bool = false) throws(VideoContainerError) -> (Int, Int) {
        guard let colon = value.firstIndex(of: UInt8(ascii: ":")) else { throw .invalidParameter(name) }
        let n = try integer(value[..<colon], name), d = try integer(value[(colon + 1)...], name)
        guard allowZero || (n > 0 && d > 0) else { throw .invalidParameter(name) }
        return (n, d)
    }
}
