/// A video frame in I420 (YUV 4:2:0, planar: a full-size luma plane, then the two chroma planes
/// at half width and half height, rounded up), the layout VP8 encoders and decoders use. Planes
/// are tightly packed (stride = width of the plane).
public struct I420Frame: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var y: [UInt8]
    public var u: [UInt8]
    public var v: [UInt8]
    /// Presentation time in the 90 kHz RTP video clock.
    public var timestamp: UInt32

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }

    /// A black frame (Y 16, U and V 128: video range).
    public init(width: Int, height: Int, timestamp: UInt32 = 0) {
        precondition(width > 0 && height > 0, "a frame has pixels")
        self.width = width
        self.height = height
        self.timestamp = timestamp
        y = [UInt8](repeating: 16, count: width * height)
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        u = [UInt8](repeating: 128, count: chroma)
        v = [UInt8](repeating: 128, count: chroma)
    }

    /// A frame from planes of the right sizes; nil when a plane's size does not match.
    public init?(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8], timestamp: UInt32 = 0) {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        guard width > 0, height > 0, y.count == width * height, u.count == chroma, v.count == chroma else { return nil }
        self.width = width
        self.height = height
        self.y = y
        self.u = u
        self.v = v
        self.timestamp = timestamp
    }

    /// Peak signal-to-noise ratio of the luma plane against `reference` (same size), in dB;
    /// infinity for identical planes.
    public func lumaPSNR(against reference: I420Frame) -> Double {
        precondition(width == reference.width && height == reference.height, "frames of one size")
        var squared: Double = 0
        for i in y.indices {
            let d = Double(Int(y[i]) - Int(reference.y[i]))
            squared += d * d
        }
        guard squared > 0 else { return .infinity }
        let mse = squared / Double(y.count)
        return 10 * log10Approximation(255 * 255 / mse)
    }
}

/// log10 without Foundation (VideoCore is pure), accurate to well under 0.01 dB for PSNR.
func log10Approximation(_ x: Double) -> Double {
    // ln(x) = 2 atanh((x - 1) / (x + 1)), after scaling x into [1, 10).
    var value = x, exponent = 0.0
    while value >= 10 { value /= 10; exponent += 1 }
    while value < 1 { value *= 10; exponent -= 1 }
    let t = (value - 1) / (value + 1), t2 = t * t
    var term = t, sum = 0.0
    var k = 1.0
    while k < 60 {
        sum += term / k
        term *= t2
        k += 2
    }
    return exponent + 2 * sum / 2.302585092994046
}
