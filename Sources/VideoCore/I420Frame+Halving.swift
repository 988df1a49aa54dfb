extension I420Frame {
    /// Writes this picture at half width and half height (rounded up) into `half`: each output
    /// pixel the rounded mean of a 2×2 box (edge pixels repeated for odd sizes), per plane.
    /// `half` is resized only when its size differs, so a simulcast layer reuses its frame.
    public func halved(into half: inout I420Frame) {
        half.resize(width: (width + 1) / 2, height: (height + 1) / 2)
        half.timestamp = timestamp
        Self.halve(y, width: width, height: height, into: &half.y, width: half.width, height: half.height)
        Self.halve(u, width: chromaWidth, height: chromaHeight, into: &half.u, width: half.chromaWidth, height: half.chromaHeight)
        Self.halve(v, width: chromaWidth, height: chromaHeight, into: &half.v, width: half.chromaWidth, height: half.chromaHeight)
    }

    /// This picture at half size, newly allocated.
    public func halved() -> I420Frame {
        var half = I420Frame(width: (width + 1) / 2, height: (height + 1) / 2)
        halved(into: &half)
        return half
    }

    /// 2×2 box filter of one plane; the destination plane of the half size (`w`×`h`).
    static func halve(_ source: [UInt8], width sw: Int, height sh: Int, into destination: inout [UInt8], width w: Int, height h: Int) {
        source.withUnsafeBufferPointer { s in
            destination.withUnsafeMutableBufferPointer { d in
                for row in 0..<h {
                    let top = 2 * row * sw, bottom = min(2 * row + 1, sh - 1) * sw
                    for col in 0..<w {
                        let left = 2 * col, right = min(2 * col + 1, sw - 1)
                        let sum = Int(s[top + left]) + Int(s[top + right]) + Int(s[bottom + left]) + Int(s[bottom + right])
                        d[row * w + col] = UInt8((sum + 2) >> 2)
                    }
                }
            }
        }
    }
}
