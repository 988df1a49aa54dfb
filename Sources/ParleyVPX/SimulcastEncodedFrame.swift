/// A frame out of one layer of a `VP8SimulcastEncoder`.
public struct SimulcastEncodedFrame: Sendable, Equatable {
    /// The layer's rid (`q`, `h`, `f`).
    public var rid: String
    public var width: Int
    public var height: Int
    public var frame: EncodedVP8Frame
}
