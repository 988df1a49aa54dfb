/// Scales I420 pictures of one size to another, bilinear (8-bit fixed-point weights, sample
/// centres aligned as libyuv's kFilterBilinear does), with the per-column and per-row source
/// positions computed once at init: scaling a stream allocates nothing. For an exact halving,
/// `I420Frame.halved(into:)` (a 2×2 box) is faster and sharper.
public struct I420Scaler: Sendable {
    public let sourceWidth: Int, sourceHeight: Int
    public let width: Int, height: Int
    private let luma: PlaneMap
    private let chroma: PlaneMap

    /// Source index pairs and weights for one plane's columns and rows.
    struct PlaneMap: Sendable {
        let columns: [(Int32, Int32, Int32)]  // left, right, weight of right (0…256)
        let rows: [(Int32, Int32, Int32)]
        let sourceStride: Int

        init(from sw: Int, _ sh: Int, to dw: Int, _ dh: Int) {
            columns = PlaneMap.taps(from: sw, to: dw)
            rows = PlaneMap.taps(from: sh, to: dh)
            sourceStride = sw
        }

        static func taps(from s: Int, to d: Int) -> [(Int32, Int32, Int32)] {
            (0..<d).map { i in
                // Centre of destination sample i in source coordinates, × 256.
                let position = max(0, ((2 * i + 1) * s * 256 / d - 256) / 2)
                let left = min(position >> 8, s - 1)
                return (Int32(left), Int32(min(left + 1, s - 1)), Int32(position & 0xFF))
            }
        }

        func scale(_ source: [UInt8], into destination: inout [UInt8]) {
            let w = columns.count
            source.withUnsafeBufferPointer { s in
                destination.withUnsafeMutableBufferPointer { d in
                    for (row, (top, bottom, wy)) in rows.enumerated() {
                        let t = Int(top) * sourceStride, b = Int(bottom) * sourceStride
                        for (col, (left, right, wx)) in columns.enumerated() {
                            let l = Int(left), r = Int(right)
                            let upper = Int(s[t + l]) * (256 - Int(wx)) + Int(s[t + r]) * Int(wx)
                            let lower = Int(s[b + l]) * (256 - Int(wx)) + Int(s[b + r]) * Int(wx)
                            d[row * w + col] = UInt8((upper * (256 - Int(wy)) + lower * Int(wy) + 32_768) >> 16)
                        }
                    }
                }
            }
        }
    }

    /// A scaler from `sourceWidth`×`sourceHeight` to `width`×`height`; nil when either size is
    /// outside `VideoLimits`.
    public init?(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        guard VideoLimits.accepts(width: sourceWidth, height: sourceHeight), VideoLimits.accepts(width: width, height: height) else { return nil }
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        luma = PlaneMap(from: sourceWidth, sourceHeight, to: width, height)
        chroma = PlaneMap(from: (sourceWidth + 1) / 2, (sourceHeight + 1) / 2, to: (width + 1) / 2, (height + 1) / 2)
    }

    /// Scales `source` into `destination` (resized only when its size differs); a source of
    /// another size than the scaler's throws.
    public func scale(_ source: I420Frame, into destination: inout I420Frame) throws(VideoSourceError) {
        guard source.width == sourceWidth, source.height == sourceHeight else {
            throw .sizeMismatch(expected: "\(sourceWidth)x\(sourceHeight)", got: "\(source.width)x\(source.height)")
        }
        destination.resize(width: width, height: height)
        destination.timestamp = source.timestamp
        luma.scale(source.y, into: &destination.y)
        chroma.scale(source.u, into: &destination.u)
        chroma.scale(source.v, into: &destination.v)
    }
}
