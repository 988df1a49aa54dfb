import WireKit

/// An RTCP packet of a type or feedback format this package does not decode (XR, TMMBR, NACKs
/// other than generic, non-REMB application feedback, …), kept byte for byte so it can be
/// forwarded or re-serialized unchanged.
public struct RTCPRawPacket: RTCPMessage {
    /// The whole packet, header and any padding included; its length is a multiple of 4.
    public var bytes: [UInt8]

    /// Wraps `bytes` as they are; they should form one valid packet.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Keeps any single packet whose header and length are valid.
    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let header = try RTCPHeader(parsing: packet)
        guard header.packetSize <= packet.count else {
            throw .lengthPastEnd(declared: header.packetSize, available: packet.count)
        }
        guard header.packetSize == packet.count else {
            throw .trailingBytes(declared: header.packetSize, actual: packet.count)
        }
        bytes = Array(packet)
    }

    /// The header, or nil when `bytes` is too short or not version 2.
    public var header: RTCPHeader? {
        bytes.withUnsafeBytes { try? RTCPHeader(parsing: $0) }
    }

    /// The bytes after the header.
    public var body: ArraySlice<UInt8> { bytes.dropFirst(4) }

    public var serializedSize: Int { bytes.count }

    public func serialize(into w: inout ByteWriter) { w.writeBytes(bytes) }
}
