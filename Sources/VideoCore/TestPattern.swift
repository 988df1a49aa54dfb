/// A moving test picture for video tests and demos, deterministic frame by frame:
/// - colour bars (BT.601 video range) sliding left 4 pixels a frame;
/// - the frame's number in the top-left corner as a row of 16 black and white blocks, so a
///   receiver can tell which frame it decoded (`frameNumber(in:)`) even after lossy coding;
/// - a black band across the bottom quarter with a white bar moving right 8 pixels a frame
///   (`movingBarPosition(in:)`), so consecutive frames differ where a person looks;
/// - optionally grain (`grain`): every luma pixel but the frame code's moves by a pseudo-random
///   amount of at most that many levels, new each frame, as a camera's sensor noise does — the
///   plain pattern compresses far below what an encoder is given, grain makes it spend its budget.
public struct TestPattern: Sendable, VideoFrameProducer {
    public let width: Int
    public let height: Int
    /// The grain's amplitude in luma levels (0: none).
    public let grain: Int
    /// Frames per second, for the 90 kHz timestamps.
    public let framesPerSecond: Int
    public private(set) var frameIndex: UInt32 = 0
    // One row of the bars, rendered once per frame and copied to every row.
    private var lumaRow: [UInt8], uRow: [UInt8], vRow: [UInt8]

    /// Block size of the frame-number code, in pixels.
    static let block = 16
    static let bits = 16
    /// Width of the moving bar and its step per frame, in pixels.
    public static let barWidth = 16
    public static let barStep = 8
    /// Eight bars (Y, U, V): white, yellow, cyan, green, magenta, red, blue, black.
    static let bars: [(UInt8, UInt8, UInt8)] = [(235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
                                                (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128)]

    /// The smallest picture that holds the frame code and the bar; callers check user-given sizes.
    public static let minimumWidth = block * bits
    public static let minimumHeight = block * 4

    public init(width: Int = 640, height: Int = 360, framesPerSecond: Int = 30, grain: Int = 0) {
        precondition(width >= Self.minimumWidth && height >= Self.minimumHeight, "the picture holds its frame code and its bar")
        self.width = width
        self.height = height
        self.grain = min(max(grain, 0), 100)
        self.framesPerSecond = max(1, framesPerSecond)
        lumaRow = [UInt8](repeating: 0, count: width)
        uRow = [UInt8](repeating: 0, count: (width + 1) / 2)
        vRow = [UInt8](repeating: 0, count: (width + 1) / 2)
    }

    public var format: VideoFormat {
        VideoFormat(width: width, height: height, frameRate: FrameRate(framesPerSecond: framesPerSecond))
    }

    /// The next frame, newly allocated (`produce(into:)` reuses one).
    public mutating func next() -> I420Frame {
        var frame = I420Frame(width: width, height: height)
        render(into: &frame)
        return frame
    }

    public mutating func produce(into frame: inout I420Frame) throws(VideoSourceError) -> Bool {
        render(into: &frame)
        return true
    }

    public mutating func rewind() throws(VideoSourceError) { frameIndex = 0 }

    /// First row of the band the bar moves in.
    public var bandTop: Int { height - height / 4 }

    /// The bar's left edge in frame `index`.
    public func barPosition(ofFrame index: UInt32) -> Int { Int(index % UInt32(max(1, (width - Self.barWidth) / Self.barStep))) * Self.barStep }

    /// Draws the next frame into `frame` (resized when needed) and advances.
    public mutating func render(into frame: inout I420Frame) {
        let index = frameIndex
        frameIndex &+= 1
        frame.resize(width: width, height: height)
        frame.timestamp = index &* UInt32(90_000 / framesPerSecond)
        let shift = Int(index % UInt32(width)) * 4
        for col in 0..<width { lumaRow[col] = Self.bars[((col + shift) % width) * Self.bars.count / width].0 }
        let cw = frame.chromaWidth
        for col in 0..<cw {
            let bar = Self.bars[((col * 2 + shift) % width) * Self.bars.count / width]
            uRow[col] = bar.1
            vRow[col] = bar.2
        }
        let band = bandTop, bar = barPosition(ofFrame: index)
        frame.y.withUnsafeMutableBufferPointer { y in
            lumaRow.withUnsafeBufferPointer { row in
                for r in 0..<band { _ = UnsafeMutableBufferPointer(rebasing: y[(r * width)..<((r + 1) * width)]).update(fromContentsOf: row) }
            }
            for r in band..<height {
                let base = r * width
                for c in 0..<width { y[base + c] = 16 }
                for c in bar..<min(width, bar + Self.barWidth) { y[base + c] = 235 }
            }
            if grain > 0 { Self.addGrain(y, amplitude: grain, seed: index) }
            // The frame number, most significant bit first, as white (1) or black (0) blocks.
            for bit in 0..<Self.bits {
                let value: UInt8 = (index >> UInt32(Self.bits - 1 - bit)) & 1 == 1 ? 235 : 16
                for r in 0..<Self.block {
                    for c in 0..<Self.block { y[r * width + bit * Self.block + c] = value }
                }
            }
        }
        let chromaBand = band / 2, ch = frame.chromaHeight
        Self.fillChroma(&frame.u, row: uRow, width: cw, height: ch, barsUntil: chromaBand)
        Self.fillChroma(&frame.v, row: vRow, width: cw, height: ch, barsUntil: chromaBand)
    }

    /// Adds to each luma value a pseudo-random offset in -amplitude...amplitude (xorshift32 seeded
    /// by the frame's number, so a pattern is the same frame by frame), kept within video range.
    private static func addGrain(_ y: UnsafeMutableBufferPointer<UInt8>, amplitude: Int, seed: UInt32) {
        var state: UInt32 = (seed &+ 1) &* 2_654_435_761 | 1
        let span = UInt32(2 * amplitude + 1)
        for i in y.indices {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let offset = Int((state >> 8) % span) - amplitude
            y[i] = UInt8(min(235, max(16, Int(y[i]) + offset)))
        }
    }

    /// Copies `row` to the chroma rows above the band and makes the band's rows neutral (128).
    private static func fillChroma(_ plane: inout [UInt8], row: [UInt8], width: Int, height: Int, barsUntil band: Int) {
        plane.withUnsafeMutableBufferPointer { p in
            row.withUnsafeBufferPointer { row in
                for r in 0..<height {
                    let dst = UnsafeMutableBufferPointer(rebasing: p[(r * width)..<((r + 1) * width)])
                    if r < band { _ = dst.update(fromContentsOf: row) } else { dst.update(repeating: 128) }
                }
            }
        }
    }

    /// The frame number a decoded test-pattern frame carries (its low 16 bits), read from the
    /// middle of each code block.
    public static func frameNumber(in frame: I420Frame) -> UInt32? {
        guard frame.width >= block * bits, frame.height >= block else { return nil }
        var number: UInt32 = 0
        for bit in 0..<bits {
            let center = (block / 2) * frame.width + bit * block + block / 2
            number = number << 1 | (frame.y[center] > 128 ? 1 : 0)
        }
        return number
    }

    /// The moving bar's left edge in a (decoded) test-pattern frame: the first bright column of
    /// the band's middle row, nil when the band shows no bar.
    public static func movingBarPosition(in frame: I420Frame) -> Int? {
        guard frame.height >= block * 4 else { return nil }
        let row = (frame.height - frame.height / 4 + frame.height) / 2
        return (0..<frame.width).first { frame.y[row * frame.width + $0] > 128 }
    }
}
