import RTP

/// A published video track's simulcast streams (RFC 8853) as they arrive: the rid each was
/// offered with (`a=simulcast:send`), the SSRC it turned out to have (the RtpStreamId header
/// extension binds them, RFC 8852 §3), its bitrate over the last second and the picture width of
/// its last key frame. Ranked by width (then bitrate): rank 0 is the smallest layer.
///
/// A pure value: the packet path calls `layer(ssrc:)` and `received(layer:bytes:now:)`, which
/// allocate nothing; `ranked(now:into:)` runs once per housekeeping tick.
public struct SimulcastLayers: Sendable {
    public struct Layer: Sendable {
        /// The rid's ASCII bytes, as the header extension carries them.
        public let rid: [UInt8]
        public internal(set) var ssrc: UInt32?
        /// From the stream's last key frame (RFC 6386 §9.1), once one arrived.
        public internal(set) var width: UInt16?
        public internal(set) var height: UInt16?
        /// Its payload's bits per second over the last complete window; 0 before one.
        public internal(set) var meter = BitrateMeter()
        public var bitrate: Int { meter.bitrate }
    }

    public private(set) var layers: [Layer]

    /// How long a layer may be silent and still count as live: a browser stops sending a layer
    /// its encoder dropped (low bandwidth or CPU).
    public static let staleAfter = 1.0
    /// At most this many layers (RFC 8853 allows more; browsers send three).
    public static let maxLayers = 4

    public init(rids: [String]) {
        layers = rids.prefix(Self.maxLayers).map { Layer(rid: Array($0.utf8)) }
    }

    /// The layer an SSRC was bound to.
    public func layer(ssrc: UInt32) -> Int? {
        var index = 0
        while index < layers.count {
            if layers[index].ssrc == ssrc { return index }
            index += 1
        }
        return nil
    }

    /// The layer whose rid is `data` (an RtpStreamId element's bytes), compared in place.
    public func layer(rid data: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index < layers.count {
            if SDESIdentifierElement.matches(data, layers[index].rid) { return index }
            index += 1
        }
        return nil
    }

    /// Binds `ssrc` to `layer` (a stream keeps its SSRC; a new one replaces it, RFC 8852 §3).
    public mutating func bind(layer: Int, ssrc: UInt32) {
        guard layers.indices.contains(layer) else { return }
        layers[layer].ssrc = ssrc
    }

    /// One packet of `bytes` (payload) arrived on `layer`.
    public mutating func received(layer: Int, bytes: Int, now: Double) {
        guard layers.indices.contains(layer) else { return }
        layers[layer].meter.add(bytes: bytes, now: now)
    }

    /// A key frame of `width` × `height` started on `layer`.
    public mutating func keyFrame(layer: Int, width: UInt16, height: UInt16) {
        guard layers.indices.contains(layer) else { return }
        layers[layer].width = width
        layers[layer].height = height
    }

    /// The live layers (a packet within `staleAfter`), smallest first, written into `ranks`.
    public func ranked(now: Double, into ranks: inout [Int]) {
        ranks.removeAll(keepingCapacity: true)
        for index in layers.indices where layers[index].meter.isLive(now: now, within: Self.staleAfter) { ranks.append(index) }
        ranks.sort { a, b in
            let x = layers[a], y = layers[b]
            if let wx = x.width, let wy = y.width, wx != wy { return wx < wy }
            if x.bitrate != y.bitrate { return x.bitrate < y.bitrate }
            return a < b
        }
    }
}
