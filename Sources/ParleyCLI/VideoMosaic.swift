import VideoCore

/// Pictures side by side in one I420 frame, each scaled to a common height (aspect kept), with
/// black gaps between them: what a participant saw, as one image.
enum VideoMosaic {
    static let gap = 8

    /// The mosaic of `frames` at `height` pixels high; nil for no frames.
    static func compose(_ frames: [I420Frame], height requested: Int = 360) -> I420Frame? {
        guard !frames.isEmpty else { return nil }
        let height = requested & ~1
        let tiles = frames.compactMap { frame -> I420Frame? in
            let width = max(2, (frame.width * height / max(1, frame.height)) & ~1)
            guard frame.width != width || frame.height != height else { return frame }
            guard let scaler = I420Scaler(sourceWidth: frame.width, sourceHeight: frame.height, width: width, height: height) else { return nil }
            var tile = I420Frame(width: width, height: height)
            return (try? scaler.scale(frame, into: &tile)).map { tile }
        }
        let width = tiles.reduce(0) { $0 + $1.width } + gap * (tiles.count - 1)
        guard var mosaic = I420Frame(width: width, height: height,
                                     y: [UInt8](repeating: 16, count: width * height),
                                     u: [UInt8](repeating: 128, count: (width / 2) * (height / 2)),
                                     v: [UInt8](repeating: 128, count: (width / 2) * (height / 2))) else { return nil }
        var left = 0
        for tile in tiles {
            copy(tile.y, width: tile.width, rows: tile.height, into: &mosaic.y, stride: width, at: left)
            copy(tile.u, width: tile.chromaWidth, rows: tile.chromaHeight, into: &mosaic.u, stride: mosaic.chromaWidth, at: left / 2)
            copy(tile.v, width: tile.chromaWidth, rows: tile.chromaHeight, into: &mosaic.v, stride: mosaic.chromaWidth, at: left / 2)
            left += tile.width + gap
        }
        return mosaic
    }

    private static func copy(_ plane: [UInt8], width: Int, rows: Int, into target: inout [UInt8], stride: Int, at column: Int) {
        for row in 0..<rows {
            target.replaceSubrange((row * stride + column)..<(row * stride + column + width), with: plane[(row * width)..<((row + 1) * width)])
        }
    }
}
