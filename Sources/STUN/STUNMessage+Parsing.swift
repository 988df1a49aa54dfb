import WireKit

extension STUNMessage {
    /// Parses one whole STUN message: `bytes` must be exactly the header plus its announced length
    /// (a UDP datagram, or one frame cut with `frameLength(_:)` from a stream).
    ///
    /// Throws for a short or inconsistent header, a wrong magic cookie, an attribute running past
    /// the end, a known attribute with a malformed value, or attributes after MESSAGE-INTEGRITY
    /// other than MESSAGE-INTEGRITY-SHA256 and FINGERPRINT, or after FINGERPRINT (RFC 8489 §14.5–14.7).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WireError) {
        var walker = try AttributeWalker(bytes)
        var attributes: [STUNAttribute] = []
        while let raw = try walker.next() {
            do {
                attributes.append(try STUNAttribute(type: raw.type, value: raw.value, transactionID: walker.header.transactionID))
            } catch .truncated {
                // The message is whole; it is the attribute's value that is too short.
                throw .malformed("stun: \(raw.type) value of \(raw.value.count) bytes is too short")
            }
        }
        self.init(type: walker.header.type, transactionID: walker.header.transactionID, attributes: attributes)
    }

    /// Parses a message held in an array.
    public init(parsing bytes: [UInt8]) throws(WireError) {
        // `withUnsafeBytes` rethrows untyped errors, so carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in Result { () throws(WireError) in try STUNMessage(parsing: raw) } }
        self = try result.get()
    }

    /// True when `bytes` starts like a STUN message: top two bits zero, a 4-aligned length and the
    /// magic cookie (RFC 8489 §5, §7.3). A cheap test for demultiplexing; it does not parse.
    public static func looksLikeSTUN(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= headerSize, bytes[0] & 0xC0 == 0, bytes[3] & 0x03 == 0 else { return false }
        var r = ByteReader(bytes, offset: 4)
        return (try? r.readUInt32()) == magicCookie
    }

    /// For STUN over a stream (RFC 8489 §6.2.2): the size of the whole message that `bytes` starts
    /// with, read from its header; nil until 4 bytes are available.
    public static func frameLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var r = ByteReader(bytes, offset: 2)
        guard let length = try? r.readUInt16() else { return nil }
        return headerSize + Int(length)
    }
}

/// The fixed header, checked against the buffer it came from.
struct STUNHeader {
    var type: STUNMessageType
    /// The Message Length field: attribute bytes after the header.
    var length: Int
    var transactionID: STUNTransactionID

    init(_ bytes: UnsafeRawBufferPointer) throws(WireError) {
        var r = ByteReader(bytes)
        let rawType = try r.readUInt16()
        let length = Int(try r.readUInt16())
        let cookie = try r.readUInt32()
        let high = try r.readUInt32()
        let low = try r.readUInt64()
        // §5: the most significant two bits of every STUN message are zero.
        guard rawType & 0xC000 == 0 else { throw .malformed("stun: top bits of message type set") }
        guard cookie == STUNMessage.magicCookie else { throw .malformed("stun: bad magic cookie") }
        // §5: the length excludes the header and is a multiple of 4, as all attributes are padded.
        guard length % 4 == 0 else { throw .malformed("stun: message length \(length) not a multiple of 4") }
        guard r.remaining >= length else { throw .truncated(needed: length, available: r.remaining) }
        guard r.remaining == length else { throw .malformed("stun: \(r.remaining - length) bytes after the message") }
        self.type = STUNMessageType(encoded: rawType)
        self.length = length
        self.transactionID = STUNTransactionID(high: high, low: low)
    }
}

/// Walks the attributes of a raw message, checking each length against what remains and the
/// position rules for the integrity attributes (RFC 8489 §14.5–14.7):
/// MESSAGE-INTEGRITY, then optionally MESSAGE-INTEGRITY-SHA256, then optionally FINGERPRINT, last.
struct AttributeWalker {
    struct Raw {
        var type: STUNAttributeType
        /// Offset of the attribute's 4-byte header from the start of the message.
        var offset: Int
        /// The value, without padding.
        var value: UnsafeRawBufferPointer
    }

    let header: STUNHeader
    private var reader: ByteReader
    private var seenIntegrity = false
    private var seenIntegritySHA256 = false
    private var seenFingerprint = false

    init(_ bytes: UnsafeRawBufferPointer) throws(WireError) {
        header = try STUNHeader(bytes)
        reader = ByteReader(bytes, offset: STUNMessage.headerSize)
    }

    mutating func next() throws(WireError) -> Raw? {
        guard !reader.isAtEnd else { return nil }
        let offset = reader.offset
        let type = STUNAttributeType(rawValue: try reader.readUInt16())
        let length = Int(try reader.readUInt16())
        guard length <= reader.remaining else {
            throw .malformed("stun: \(type) length \(length) runs past the end (\(reader.remaining) left)")
        }
        let value = try reader.readSlice(length)
        // §14: values are padded to 4 bytes; the header length is 4-aligned so padding must fit.
        let padding = (4 - length % 4) % 4
        guard padding <= reader.remaining else { throw .malformed("stun: \(type) is missing its padding") }
        try reader.skip(padding)
        try checkOrder(type)
        return Raw(type: type, offset: offset, value: value)
    }

    private mutating func checkOrder(_ type: STUNAttributeType) throws(WireError) {
        if seenFingerprint { throw .malformed("stun: \(type) after FINGERPRINT") }
        switch type {
        case .fingerprint:
            seenFingerprint = true
        case .messageIntegritySHA256:
            if seenIntegritySHA256 { throw .malformed("stun: second MESSAGE-INTEGRITY-SHA256") }
            seenIntegritySHA256 = true
        case .messageIntegrity:
            if seenIntegrity || seenIntegritySHA256 { throw .malformed("stun: MESSAGE-INTEGRITY out of place") }
            seenIntegrity = true
        default:
            if seenIntegrity || seenIntegritySHA256 {
                throw .malformed("stun: \(type) after MESSAGE-INTEGRITY; only FINGERPRINT may follow")
            }
        }
    }
}
