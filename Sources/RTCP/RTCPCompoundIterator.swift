/// One packet inside a compound packet: its header and a view of its bytes (header included).
public struct RTCPPacketSlice {
    public let header: RTCPHeader
    /// The packet's bytes; valid only while the buffer iterated is.
    public let bytes: UnsafeRawBufferPointer
}

/// Walks the packets of a compound RTCP packet (RFC 3550 §6.1) on their headers alone, without
/// decoding bodies or allocating, so a forwarder can pick out PLI or NACK cheaply.
///
/// Stops at the end of the buffer or at the first header that is malformed or whose length runs
/// past the end; `error` then says why.
public struct RTCPCompoundIterator: IteratorProtocol, Sequence {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// Set when the walk stopped early on a bad header.
    public private(set) var error: RTCPError?

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    public mutating func next() -> RTCPPacketSlice? {
        guard error == nil, offset < bytes.count else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        let header: RTCPHeader
        do {
            header = try RTCPHeader(parsing: rest)
        } catch {
            self.error = error
            return nil
        }
        let size = header.packetSize
        guard size <= rest.count else {
            error = .lengthPastEnd(declared: size, available: rest.count)
            return nil
        }
        offset += size
        return RTCPPacketSlice(header: header, bytes: UnsafeRawBufferPointer(rebasing: rest[..<size]))
    }
}
