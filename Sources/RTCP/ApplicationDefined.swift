import WireKit

/// Application-defined packet, PT 204 (RFC 3550 §6.7): a 5-bit subtype, a 4-character name and
/// application data.
public struct ApplicationDefined: RTCPMessage {
    /// The 5-bit subtype carried in the count field.
    public var subtype: UInt8
    public var ssrc: UInt32
    /// Four ASCII characters naming the application (§6.7).
    public var name: UInt32
    /// Application data; written with RTCP padding (P bit) if not a multiple of 4.
    public var data: [UInt8]

    public init(subtype: UInt8, ssrc: UInt32, name: UInt32, data: [UInt8] = []) {
        self.subtype = subtype & 0x1F
        self.ssrc = ssrc
        self.name = name
        self.data = data
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(packet, type: .applicationDefined)
        var r = body
        subtype = header.count
        ssrc = try r.u32()
        name = try r.u32()
        data = r.rest()
    }

    public var serializedSize: Int { 12 + align4(data.count) }

    public func serialize(into w: inout ByteWriter) {
        RTCPHeader.write(count: subtype, type: .applicationDefined, size: serializedSize,
                         padding: RTCPPadding.count(for: data.count) > 0, into: &w)
        w.writeUInt32(ssrc)
        w.writeUInt32(name)
        w.writeBytes(data)
        RTCPPadding.write(RTCPPadding.count(for: data.count), into: &w)
    }
}
