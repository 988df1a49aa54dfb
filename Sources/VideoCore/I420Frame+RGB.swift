extension I420Frame {
    /// The picture as 8-bit RGB, row by row without padding (3 × width × height bytes), converted
    /// with the BT.601 video-range matrix (ITU-R BT.601-7; the integer form of libyuv's I420ToRGB24).
    /// `rgb` is resized only when its size differs.
    public func rgb24(into rgb: inout [UInt8]) {
        let count = width * height * 3
        if rgb.count != count { rgb = [UInt8](repeating: 0, count: count) }
        let cw = chromaWidth
        y.withUnsafeBufferPointer { y in
            u.withUnsafeBufferPointer { u in
                v.withUnsafeBufferPointer { v in
                    rgb.withUnsafeMutableBufferPointer { out in
                        for row in 0..<height {
                            let chromaRow = (row / 2) * cw
                            for col in 0..<width {
                                let c = 298 * (Int(y[row * width + col]) - 16)
                                let d = Int(u[chromaRow + col / 2]) - 128, e = Int(v[chromaRow + col / 2]) - 128
                                let o = (row * width + col) * 3
                                out[o] = Self.clamp((c + 409 * e + 128) >> 8)
                                out[o + 1] = Self.clamp((c - 100 * d - 208 * e + 128) >> 8)
                                out[o + 2] = Self.clamp((c + 516 * d + 128) >> 8)
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always) static func clamp(_ value: Int) -> UInt8 { UInt8(min(max(value, 0), 255)) }
}
