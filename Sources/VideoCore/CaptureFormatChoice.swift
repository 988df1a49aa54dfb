/// A picture size in pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}

/// One pixel format a capture device offers (`VIDIOC_ENUM_FMT`) and the sizes it lists for it
/// (`VIDIOC_ENUM_FRAMESIZES`, discrete ones); no sizes when it takes any (stepwise, continuous)
/// or does not say.
public struct CaptureFormatOffer: Sendable, Equatable, CustomStringConvertible {
    public var fourcc: UInt32
    public var sizes: [PixelSize]

    public init(fourcc: UInt32, sizes: [PixelSize] = []) {
        self.fourcc = fourcc
        self.sizes = sizes
    }

    public var description: String {
        CapturePixelFormat.text(ofFourCC: fourcc) + (sizes.isEmpty ? "" : " " + sizes.map(\.description).joined(separator: " "))
    }
}

/// The format to capture in: one Parley converts, at the size nearest the one asked for.
public struct CaptureFormatChoice: Sendable, Equatable {
    public let pixelFormat: CapturePixelFormat
    public let size: PixelSize

    public init(pixelFormat: CapturePixelFormat, size: PixelSize) {
        self.pixelFormat = pixelFormat
        self.size = size
    }

    /// Picks from what a device offers: among the formats Parley converts (others, MJPEG and
    /// H.264 included, are passed over), the size asked for when offered (or any size is), else
    /// the smallest offered size that covers it, else the largest offered; between formats with
    /// equally good sizes, planar I420 before NV12, YV12, then YUYV (least work to convert).
    /// Nil when no offered format can be converted.
    public static func choose(from offers: [CaptureFormatOffer], requested: PixelSize) -> CaptureFormatChoice? {
        let preference: [CapturePixelFormat] = [.i420, .nv12, .yv12, .yuyv]
        var best: (rank: (Int, Int, Int), choice: CaptureFormatChoice)?
        for offer in offers {
            guard let format = CapturePixelFormat(rawValue: offer.fourcc), let order = preference.firstIndex(of: format) else { continue }
            let (fit, size) = nearest(offer.sizes, to: requested)
            let area = abs(size.width * size.height - requested.width * requested.height)
            let rank = (fit, area, order)
            if best.map({ rank < $0.rank }) ?? true { best = (rank, CaptureFormatChoice(pixelFormat: format, size: size)) }
        }
        return best?.choice
    }

    /// How well `sizes` serve `requested` (0 exact or any size, 1 a larger size, 2 only smaller
    /// ones) and the size to use.
    static func nearest(_ sizes: [PixelSize], to requested: PixelSize) -> (Int, PixelSize) {
        if sizes.isEmpty || sizes.contains(requested) { return (0, requested) }
        let area = { (size: PixelSize) in size.width * size.height }
        let covering = sizes.filter { $0.width >= requested.width && $0.height >= requested.height }
        if let smallest = covering.min(by: { area($0) < area($1) }) { return (1, smallest) }
        return (2, sizes.max(by: { area($0) < area($1) })!)
    }
}
