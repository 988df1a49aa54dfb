/// A moving test picture for video tests and demos: colour bars that slide one step per frame, and
/// the frame's number written into the top-left corner as a row of 16 black and white blocks, so a
/// receiver can tell which frame it decoded (`frameNumber(in:)`) even after lossy coding.
public struct TestPattern: Sendable {
    public let width: Int
    public let height: Int
    /// Frames per second, for the 90 kHz timestamps.
    public let framesPerSecond: Int
    public private(set) var frameIndex: UInt32 = 0

    /// Block size of the frame-number code, in pixels.
    static let block = 16
    static let bits = 16

    public init(width: Int = 640, height: Int = 360, framesPerSecond: Int = 30) {
        precondition(width >= Self.block * Self.bits && height >= Self.block * 2, "the picture holds its frame code")
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
    }

    /// The next frame.
    public mutating func next() -> I420Frame {
        let index = frameIndex
        frameIndex &+= 1
        var frame = I420Frame(width: width, height: height, timestamp: index &* UInt32(90_000 / framesPerSecond))
        // Eight bars (luma, U, V), shifted by 4 pixels a frame.
        let bars: [(UInt8, UInt8, UInt8)] = [(235, 128, 128), (210, 16, 146), (170, 166, 16), (145, 54, 34),
                                             (106, 202, 222), (81, 90, 240), (41, 240, 110), (16, 128, 128)]
        let shift = Int(index % UInt32(width)) * 4
        for row in 0..<height {
            for col in 0..<width {
                let bar = bars[((col + shift) % width) * bars.count / width]
                frame.y[row * width + col] = bar.0
            }
        }
        for row in 0..<frame.chromaHeight {
            for col in 0..<frame.chromaWidth {
                let bar = bars[((col * 2 + shift) % width) * bars.count / width]
                frame.u[row * frame.chromaWidth + col] = bar.1
                frame.v[row * frame.chromaWidth + col] = bar.2
            }
        }
        // The frame number, most significant bit first, as white (1) or black (0) blocks.
        for bit in 0..<Self.bits {
            let value: UInt8 = (index >> UInt32(Self.bits - 1 - bit)) & 1 == 1 ? 235 : 16
            for row in 0..<Self.block {
                for col in 0..<Self.block { frame.y[row * width + bit * Self.block + col] = value }
            }
        }
        return frame
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
}
