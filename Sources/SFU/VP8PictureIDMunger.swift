/// Keeps a forwarded VP8 stream's picture IDs and TL0PICIDX continuous (RFC 7741 §4.2) when its
/// source changes — another simulcast layer, another publisher — so the subscriber's decoder
/// sees one stream: each source is mapped by a constant offset, and a change of source makes its
/// first picture follow the last one sent. Pure: the forwarder passes each packet's fields and
/// writes back what this returns (`VP8PayloadDescriptor.rewrite`, in place).
///
/// Picture IDs are mapped in 15 bits; a descriptor with a 7-bit ID keeps its 7 low bits.
public struct VP8PictureIDMunger: Sendable, Equatable {
    private var pictureOffset: UInt16 = 0
    private var tl0Offset: UInt8 = 0
    private var lastPictureID: UInt16?
    private var lastTL0PictureIndex: UInt8?
    private var resyncPending = true

    public init() {}

    /// The next packet comes from another source (switch at a keyframe).
    public mutating func sourceChanged() {
        resyncPending = true
    }

    /// The picture ID and TL0PICIDX to send for a packet that carried `pictureID` and `tl0PictureIndex`.
    public mutating func map(pictureID: UInt16?, tl0PictureIndex: UInt8?) -> (pictureID: UInt16?, tl0PictureIndex: UInt8?) {
        if resyncPending {
            resyncPending = false
            if let pictureID {
                pictureOffset = lastPictureID.map { ($0 &+ 1 &- pictureID) & 0x7FFF } ?? 0
            }
            if let tl0PictureIndex {
                tl0Offset = lastTL0PictureIndex.map { $0 &+ 1 &- tl0PictureIndex } ?? 0
            }
        }
        let mappedPicture = pictureID.map { ($0 &+ pictureOffset) & 0x7FFF }
        let mappedTL0 = tl0PictureIndex.map { $0 &+ tl0Offset }
        if let mappedPicture { lastPictureID = mappedPicture }
        if let mappedTL0 { lastTL0PictureIndex = mappedTL0 }
        return (mappedPicture, mappedTL0)
    }
}
