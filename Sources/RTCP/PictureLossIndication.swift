import WireKit

/// Picture loss indication, PSFB FMT 1 (RFC 4585 §6.3.1): asks the sender of `mediaSSRC` for a
/// key frame. It carries no FCI.
public struct PictureLossIndication: RTCPMessage {
    public static let format: UInt8 = 1

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(packet, type: .payloadFeedback, count: Self.format)
        var r = body
        senderSSRC = try r.u32()
        mediaSSRC = try r.u32()
        // §6.3.1: "no parameters", so a PLI is exactly 12 bytes.
        guard r.remaining == 0 else { throw .invalidLength(8 + r.remaining) }
    }

    public var serializedSize: Int { 12 }

    public func serialize(into w: inout ByteWriter) {
        RTCPHeader.write(count: Self.format, type: .payloadFeedback, size: serializedSize, into: &w)
        w.writeUInt32(senderSSRC)
        w.writeUInt32(mediaSSRC)
    }
}
