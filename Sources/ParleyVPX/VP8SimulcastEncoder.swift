import VideoCore

/// VP8 simulcast (RFC 8853 layers by rid): up to three independent `VP8Encoder`s at 1/4, 1/2
/// and full resolution (`q`, `h`, `f`), fed from one picture halved once per layer down (2×2
/// box, into frames kept between calls). No temporal layers. A layer can be paused when the
/// server forwards none of it, and resumes with a key frame. Not thread-safe: one owner.
public final class VP8SimulcastEncoder {
    /// The full-resolution input size.
    public let width: Int
    public let height: Int
    public private(set) var layers: [SimulcastLayer]
    /// The sum of the layers' bitrates (paused layers included).
    public private(set) var maxBitrate: Int
    private var encoders: [VP8Encoder]
    private var scaled: [I420Frame]
    private var keyFramePending: [Bool]

    /// - Parameters:
    ///   - layerCount: 1 (`f` only), 2 (`h`, `f`) or 3 (`q`, `h`, `f`); layers under 16 pixels
    ///     on a side are left out.
    ///   - maxBitrate: the total over all layers, split as `SimulcastLayer.standard` (150:500:1500).
    public init(width: Int, height: Int, layerCount: Int = 3, maxBitrate: Int = 2_150_000, framesPerSecond: Int = 30,
                cpuUsed: Int = 8) throws(VPXError) {
        guard VideoLimits.accepts(width: width, height: height) else { throw VPXError("simulcast input of \(width)x\(height)") }
        self.width = width
        self.height = height
        let wanted = SimulcastLayer.standard.suffix(min(max(layerCount, 1), 3)).filter {
            $0.scaleDownBy == 1 || (width / $0.scaleDownBy >= 16 && height / $0.scaleDownBy >= 16)
        }
        var layers: [SimulcastLayer] = [], encoders: [VP8Encoder] = [], scaled: [I420Frame] = []
        let shareTotal = wanted.reduce(0) { $0 + $1.bitrate }
        for spec in wanted {
            var w = width, h = height
            for _ in 0..<(spec.scaleDownBy == 4 ? 2 : spec.scaleDownBy == 2 ? 1 : 0) { (w, h) = ((w + 1) / 2, (h + 1) / 2) }
            let bitrate = Self.share(spec.bitrate, of: maxBitrate, total: shareTotal)
            layers.append(SimulcastLayer(rid: spec.rid, scaleDownBy: spec.scaleDownBy, width: w, height: h, bitrate: bitrate, isEnabled: true))
            encoders.append(try VP8Encoder(width: w, height: h, bitrate: bitrate, framesPerSecond: framesPerSecond, cpuUsed: cpuUsed))
            scaled.append(I420Frame(width: w, height: h))
        }
        self.layers = layers
        self.encoders = encoders
        self.scaled = scaled
        self.maxBitrate = maxBitrate
        keyFramePending = Array(repeating: false, count: layers.count)
    }

    /// Encodes one full-resolution picture into every enabled layer, lowest layer first; a
    /// picture of another size throws.
    public func encode(_ frame: I420Frame) throws(VPXError) -> [SimulcastEncodedFrame] {
        guard frame.width == width, frame.height == height else {
            throw VPXError("frame of \(frame.width)x\(frame.height) for a \(width)x\(height) simulcast encoder")
        }
        // Halve from the top down: each layer's picture is the one above it halved.
        for index in stride(from: layers.count - 1, through: 0, by: -1) where layers[index].scaleDownBy > 1 && needsPicture(index) {
            let above = index + 1 < layers.count && layers[index + 1].scaleDownBy > 1 ? scaled[index + 1] : frame
            above.halved(into: &scaled[index])
        }
        var out: [SimulcastEncodedFrame] = []
        for index in layers.indices where layers[index].isEnabled {
            let keyFrame = keyFramePending[index]
            keyFramePending[index] = false
            let picture = layers[index].scaleDownBy == 1 ? frame : scaled[index]
            for encoded in try encoders[index].encode(picture, keyFrame: keyFrame) {
                out.append(SimulcastEncodedFrame(rid: layers[index].rid, width: layers[index].width, height: layers[index].height, frame: encoded))
            }
        }
        return out
    }

    /// Asks for a key frame on the next picture: in the layer `rid` (a PLI or FIR for that
    /// layer's SSRC), or in every layer when nil.
    public func requestKeyFrame(rid: String? = nil) {
        for index in layers.indices where rid == nil || layers[index].rid == rid { keyFramePending[index] = true }
    }

    /// Pauses or resumes a layer; a resumed layer starts with a key frame. False for an unknown rid.
    @discardableResult
    public func setLayer(_ rid: String, enabled: Bool) -> Bool {
        guard let index = layers.firstIndex(where: { $0.rid == rid }) else { return false }
        if enabled && !layers[index].isEnabled { keyFramePending[index] = true }
        layers[index].isEnabled = enabled
        return true
    }

    /// Sets the total bitrate, split over the layers in the standard proportions.
    public func setMaxBitrate(_ bitrate: Int) throws(VPXError) {
        let shareTotal = layers.reduce(0) { total, layer in total + (SimulcastLayer.standard.first { $0.rid == layer.rid }?.bitrate ?? 0) }
        for index in layers.indices {
            let standard = SimulcastLayer.standard.first { $0.rid == layers[index].rid }?.bitrate ?? 0
            let target = Self.share(standard, of: bitrate, total: shareTotal)
            try encoders[index].setBitrate(target)
            layers[index].bitrate = target
        }
        maxBitrate = bitrate
    }

    /// Whether layer `index`'s picture is needed: it is sent, or a lower layer is halved from it.
    private func needsPicture(_ index: Int) -> Bool {
        layers[...index].contains { $0.isEnabled }
    }

    static func share(_ part: Int, of total: Int, total shares: Int) -> Int {
        guard shares > 0 else { return max(total, 1000) }
        return max(1000, Int(Int64(total) * Int64(part) / Int64(shares)))
    }
}
