import WireKit

/// Goodbye, PT 203 (RFC 3550 §6.6): sources leaving, with an optional reason.
public struct Goodbye: RTCPMessage {
    /// Sources leaving; at most 31 are written (SC is 5 bits).
    public var sources: [UInt32]
    /// The reason octets (normally UTF-8), at most 255 written; nil when absent.
    public var reason: [UInt8]?

    public init(sources: [UInt32], reason: [UInt8]? = nil) {
        self.sources = sources
        self.reason = reason
    }

    public init(sources: [UInt32], reason: String) {
        self.init(sources: sources, reason: Array(reason.utf8))
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(packet, type: .goodbye)
        var r = body
        guard Int(header.count) * 4 <= r.remaining else {
            throw .countMismatch(count: Int(header.count), available: r.remaining)
        }
        var sources: [UInt32] = []
        for _ in 0..<header.count { sources.append(try r.u32()) }
        self.sources = sources
        if r.remaining > 0 {
            // §6.6: a length octet, the text, then padding to 32 bits.
            let length = Int(try r.u8())
            guard length <= r.remaining else { throw .byeReasonPastEnd }
            reason = try r.bytes(length)
        } else {
            reason = nil
        }
    }

    /// The reason decoded as UTF-8 (invalid sequences replaced).
    public var reasonText: String? { reason.map { String(decoding: $0, as: UTF8.self) } }

    public var serializedSize: Int {
        4 + 4 * min(sources.count, 31) + (reason.map { align4(1 + min($0.count, 255)) } ?? 0)
    }

    public func serialize(into w: inout ByteWriter) {
        let written = sources.prefix(31)
        RTCPHeader.write(count: UInt8(written.count), type: .goodbye, size: serializedSize, into: &w)
        for source in written { w.writeUInt32(source) }
        if let reason {
            let text = reason.prefix(255)
            w.writeUInt8(UInt8(text.count))
            w.writeBytes(text)
            w.writeZeros(align4(1 + text.count) - 1 - text.count)
        }
    }
}
