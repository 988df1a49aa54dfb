/// The fields a forwarder reads and rewrites, straight from a packet's payload in its buffer
/// (RFC 7741 §4.2, §4.3), so the packet path allocates nothing. The same layout rules as
/// `init(parsing:)` and `rewrite(_:at:pictureID:tl0PictureIndex:)`, which the fuzz target holds
/// them to.
extension VP8PayloadDescriptor {
    /// What one packet's descriptor says about the picture it carries.
    public struct Fields: Sendable, Hashable {
        public var pictureID: UInt16?
        public var tl0PictureIndex: UInt8?
        /// S = 1 and PID = 0: the packet starts a frame.
        public var startsFrame: Bool
        /// A frame start whose VP8 payload header says key frame (P = 0, RFC 7741 §4.3).
        public var startsKeyFrame: Bool
        /// The descriptor's length: where the VP8 payload starts.
        public var length: Int
    }

    /// The descriptor's fields, or nil when the payload is too short for what it announces.
    public static func fields(of payload: UnsafeRawBufferPointer) -> Fields? {
        guard let first = payload.first else { return nil }
        var i = 1
        var pictureID: UInt16?
        var tl0: UInt8?
        if first & 0x80 != 0 {
            guard i < payload.count else { return nil }
            let extensions = payload[i]
            i += 1
            if extensions & 0x80 != 0 {
                guard i < payload.count else { return nil }
                if payload[i] & 0x80 != 0 {
                    guard i + 1 < payload.count else { return nil }
                    pictureID = UInt16(payload[i] & 0x7F) << 8 | UInt16(payload[i + 1])
                    i += 2
                } else {
                    pictureID = UInt16(payload[i])
                    i += 1
                }
            }
            if extensions & 0x40 != 0 {
                guard i < payload.count else { return nil }
                tl0 = payload[i]
                i += 1
            }
            if extensions & 0x30 != 0 {
                guard i < payload.count else { return nil }
                i += 1
            }
        }
        let startsFrame = first & 0x10 != 0 && first & 0x07 == 0
        let keyFrame = startsFrame && i < payload.count && payload[i] & 0x01 == 0
        return Fields(pictureID: pictureID, tl0PictureIndex: tl0, startsFrame: startsFrame, startsKeyFrame: keyFrame, length: i)
    }

    /// Writes `pictureID` and `tl0PictureIndex` over the descriptor's own, in place and keeping
    /// its length (a 7-bit picture ID keeps 7 bits); false when the payload is too short.
    @discardableResult
    public static func rewrite(_ payload: UnsafeMutableRawBufferPointer, pictureID: UInt16?, tl0PictureIndex: UInt8?) -> Bool {
        missingField(rewriting: payload, pictureID: pictureID, tl0PictureIndex: tl0PictureIndex) == nil
    }

    /// The rewrite itself; the field the payload ran out in, or nil when it was written.
    static func missingField(rewriting payload: UnsafeMutableRawBufferPointer, pictureID: UInt16?,
                             tl0PictureIndex: UInt8?) -> VP8ParseError.Field? {
        guard let first = payload.first else { return .descriptor }
        guard first & 0x80 != 0 else { return nil }
        guard payload.count > 1 else { return .extensionByte }
        let extensions = payload[1]
        var i = 2
        if extensions & 0x80 != 0 {
            guard i < payload.count else { return .pictureID }
            if payload[i] & 0x80 != 0 {
                guard i + 1 < payload.count else { return .pictureID }
                if let pictureID {
                    payload[i] = 0x80 | UInt8((pictureID >> 8) & 0x7F)
                    payload[i + 1] = UInt8(pictureID & 0xFF)
                }
                i += 2
            } else {
                if let pictureID { payload[i] = UInt8(pictureID & 0x7F) }
                i += 1
            }
        }
        if extensions & 0x40 != 0 {
            guard i < payload.count else { return .tl0PictureIndex }
            if let tl0PictureIndex { payload[i] = tl0PictureIndex }
        }
        return nil
    }
}
