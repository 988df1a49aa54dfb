/// The header at the start of a VP8 frame (RFC 6386 §9.1; the VP8 payload header of RFC 7741
/// §4.3), found right after the payload descriptor of the packet that starts a frame:
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |Size0|H| VER |P|   P = 0: a key frame
/// +-+-+-+-+-+-+-+-+
/// |     Size1     |
/// +-+-+-+-+-+-+-+-+
/// |     Size2     |
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// A key frame goes on with the start code 0x9D 0x01 0x2A and its dimensions (14 bits each, two
/// bits of scaling): what a forwarder needs to know a subscriber can start decoding here, and at
/// which resolution.
public struct VP8FrameHeader: Sendable, Hashable {
    public var isKeyFrame: Bool
    /// VER: the profile (0…3).
    public var version: UInt8
    /// H: the frame is meant to be shown.
    public var isShown: Bool
    /// The size of the first partition in bytes (19 bits).
    public var firstPartitionSize: UInt32
    /// Key frames only: width and height in pixels, and the scaling codes (0…3).
    public var width: UInt16?
    public var height: UInt16?
    public var horizontalScale: UInt8?
    public var verticalScale: UInt8?

    /// Parses the frame header at the start of `frame` (the payload after the descriptor).
    public init(parsing frame: ArraySlice<UInt8>) throws(VP8ParseError) {
        var reader = VP8Reader(frame)
        let b0 = try reader.next(.frameHeader), b1 = try reader.next(.frameHeader), b2 = try reader.next(.frameHeader)
        isKeyFrame = b0 & 0x01 == 0
        version = (b0 >> 1) & 0x07
        isShown = b0 & 0x10 != 0
        firstPartitionSize = UInt32(b0 >> 5) | UInt32(b1) << 3 | UInt32(b2) << 11
        width = nil
        height = nil
        horizontalScale = nil
        verticalScale = nil
        guard isKeyFrame else { return }
        let code = (try reader.next(.keyFrameHeader), try reader.next(.keyFrameHeader), try reader.next(.keyFrameHeader))
        guard code == (0x9D, 0x01, 0x2A) else { throw .badStartCode }
        let w0 = try reader.next(.keyFrameHeader), w1 = try reader.next(.keyFrameHeader)
        let h0 = try reader.next(.keyFrameHeader), h1 = try reader.next(.keyFrameHeader)
        width = UInt16(w0) | UInt16(w1 & 0x3F) << 8
        horizontalScale = w1 >> 6
        height = UInt16(h0) | UInt16(h1 & 0x3F) << 8
        verticalScale = h1 >> 6
    }

    /// The picture size of a key frame whose frame starts at `frame` (RFC 6386 §9.1), read in place
    /// for the packet path; nil when it is no key frame or too short. Agrees with `init(parsing:)`.
    public static func keyFrameSize(in frame: UnsafeRawBufferPointer) -> (width: UInt16, height: UInt16)? {
        guard frame.count >= 10, frame[0] & 0x01 == 0, frame[3] == 0x9D, frame[4] == 0x01, frame[5] == 0x2A else { return nil }
        return (UInt16(frame[6]) | UInt16(frame[7] & 0x3F) << 8, UInt16(frame[8]) | UInt16(frame[9] & 0x3F) << 8)
    }

    /// The frame header of an RTP payload that starts a VP8 frame (descriptor, then frame), or nil
    /// when the payload continues a frame.
    public static func inPayload(_ payload: ArraySlice<UInt8>) throws(VP8ParseError) -> VP8FrameHeader? {
        let descriptor = try VP8PayloadDescriptor(parsing: payload)
        guard descriptor.startsFrame else { return nil }
        return try VP8FrameHeader(parsing: payload.dropFirst(descriptor.serializedSize))
    }
}
