/// The VP8 payload descriptor at the start of every VP8 RTP payload (RFC 7741 §4.2):
///
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (required)
///      +-+-+-+-+-+-+-+-+
/// X:   |I|L|T|K| RSV   | (optional)
///      +-+-+-+-+-+-+-+-+
/// I:   |M| PictureID   | (optional; 15 bits when M is set)
///      +-+-+-+-+-+-+-+-+
/// L:   |   TL0PICIDX   | (optional)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (optional)
///      +-+-+-+-+-+-+-+-+
/// ```
///
/// What a selective forwarding unit reads and rewrites: the picture ID and TL0PICIDX (continuous
/// across layer and publisher switches), the temporal layer, and where a frame starts.
public struct VP8PayloadDescriptor: Sendable, Hashable {
    /// N: the frame is not used to predict other frames (it can be dropped).
    public var isNonReference: Bool
    /// S: the payload starts a VP8 partition.
    public var isStartOfPartition: Bool
    /// PID: the partition index (0…7).
    public var partitionIndex: UInt8
    /// I: the picture ID, 7 or 15 bits.
    public var pictureID: UInt16?
    /// M: the picture ID is written in 15 bits (two bytes) rather than 7.
    public var hasLongPictureID: Bool
    /// L: the temporal-layer-0 picture index.
    public var tl0PictureIndex: UInt8?
    /// T: the temporal layer index (0…3).
    public var temporalLayer: UInt8?
    /// Y: the frame depends only on temporal layer 0 (a switch point); meaningful with T.
    public var isLayerSync: Bool
    /// K: the key index (0…31).
    public var keyIndex: UInt8?

    public init(isNonReference: Bool = false, isStartOfPartition: Bool = true, partitionIndex: UInt8 = 0,
                pictureID: UInt16? = nil, hasLongPictureID: Bool = true, tl0PictureIndex: UInt8? = nil,
                temporalLayer: UInt8? = nil, isLayerSync: Bool = false, keyIndex: UInt8? = nil) {
        self.isNonReference = isNonReference
        self.isStartOfPartition = isStartOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.hasLongPictureID = hasLongPictureID
        self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayer = temporalLayer
        self.isLayerSync = isLayerSync
        self.keyIndex = keyIndex
    }

    /// Whether this packet carries the first bytes of a frame (S set, partition 0): where the VP8
    /// payload header, and for a key frame its start code, follow the descriptor.
    public var startsFrame: Bool { isStartOfPartition && partitionIndex == 0 }

    /// Parses the descriptor at the start of `payload`; its length is `serializedSize`.
    public init(parsing payload: ArraySlice<UInt8>) throws(VP8ParseError) {
        var reader = VP8Reader(payload)
        let first = try reader.next(.descriptor)
        isNonReference = first & 0x20 != 0
        isStartOfPartition = first & 0x10 != 0
        partitionIndex = first & 0x07
        pictureID = nil
        hasLongPictureID = false
        tl0PictureIndex = nil
        temporalLayer = nil
        isLayerSync = false
        keyIndex = nil
        guard first & 0x80 != 0 else { return }
        let extensions = try reader.next(.extensionByte)
        if extensions & 0x80 != 0 {
            let high = try reader.next(.pictureID)
            if high & 0x80 != 0 {
                hasLongPictureID = true
                pictureID = UInt16(high & 0x7F) << 8 | UInt16(try reader.next(.pictureID))
            } else {
                pictureID = UInt16(high)
            }
        }
        if extensions & 0x40 != 0 { tl0PictureIndex = try reader.next(.tl0PictureIndex) }
        let hasTemporalLayer = extensions & 0x20 != 0, hasKeyIndex = extensions & 0x10 != 0
        if hasTemporalLayer || hasKeyIndex {
            let byte = try reader.next(.layerByte)
            if hasTemporalLayer {
                temporalLayer = byte >> 6
                isLayerSync = byte & 0x20 != 0
            }
            if hasKeyIndex { keyIndex = byte & 0x1F }
        }
    }

    /// The descriptor's length in bytes.
    public var serializedSize: Int {
        guard hasExtensionByte else { return 1 }
        var size = 2
        if pictureID != nil { size += hasLongPictureID ? 2 : 1 }
        if tl0PictureIndex != nil { size += 1 }
        if temporalLayer != nil || keyIndex != nil { size += 1 }
        return size
    }

    private var hasExtensionByte: Bool {
        pictureID != nil || tl0PictureIndex != nil || temporalLayer != nil || keyIndex != nil
    }

    /// Appends the descriptor. A 7-bit picture ID above 127 is written in 15 bits.
    public func serialize(into out: inout [UInt8]) {
        var first = partitionIndex & 0x07
        if hasExtensionByte { first |= 0x80 }
        if isNonReference { first |= 0x20 }
        if isStartOfPartition { first |= 0x10 }
        out.append(first)
        guard hasExtensionByte else { return }
        var extensions: UInt8 = 0
        if pictureID != nil { extensions |= 0x80 }
        if tl0PictureIndex != nil { extensions |= 0x40 }
        if temporalLayer != nil { extensions |= 0x20 }
        if keyIndex != nil { extensions |= 0x10 }
        out.append(extensions)
        if let pictureID {
            if hasLongPictureID || pictureID > 0x7F {
                out.append(0x80 | UInt8((pictureID >> 8) & 0x7F))
                out.append(UInt8(pictureID & 0xFF))
            } else {
                out.append(UInt8(pictureID))
            }
        }
        if let tl0PictureIndex { out.append(tl0PictureIndex) }
        if temporalLayer != nil || keyIndex != nil {
            var byte = (temporalLayer ?? 0) << 6
            if isLayerSync { byte |= 0x20 }
            byte |= (keyIndex ?? 0) & 0x1F
            out.append(byte)
        }
    }

    /// Rewrites the picture ID and TL0PICIDX of the descriptor at the start of `payload` in place,
    /// keeping its length (a 7-bit picture ID keeps 7 bits: the value wraps at 128), as a
    /// forwarder does on the packet path without moving the payload. Fields the descriptor lacks
    /// are left out.
    public static func rewrite(_ payload: inout [UInt8], at offset: Int, pictureID: UInt16?,
                               tl0PictureIndex: UInt8?) throws(VP8ParseError) {
        guard offset >= 0, offset < payload.count else { throw .truncated(.descriptor) }
        let missing = payload.withUnsafeMutableBytes { bytes in
            missingField(rewriting: UnsafeMutableRawBufferPointer(rebasing: bytes[offset...]), pictureID: pictureID,
                         tl0PictureIndex: tl0PictureIndex)
        }
        if let missing { throw .truncated(missing) }
    }
}

/// Reads one byte at a time from a payload, naming the field that ran out.
struct VP8Reader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var consumed: Int { index - bytes.startIndex }

    mutating func next(_ field: VP8ParseError.Field) throws(VP8ParseError) -> UInt8 {
        guard index < bytes.endIndex else { throw .truncated(field) }
        defer { index += 1 }
        return bytes[index]
    }
}
