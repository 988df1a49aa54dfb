import WireKit

extension STUNMessage {
    /// Parses one whole STUN message: `bytes` must be exactly the header plus its announced length
    /// (a UDP datagram, or one frame cut with `frameLength(_:)` from a stream).
    ///
    /// Throws for a short or inconsistent header, a wrong magic cookie, an attribute running past
    /// the end, a known attribute with a malformed value, or attributes after MESSAGE-INTEGRITY
    /// other than MESSAGE-INTEGRITY-SHA256 and FINGERPRINT, or after FINGERPRINT (RFC 8489 §14.5–14.7).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(STUNError) {
        var walker = try AttributeWalker(bytes)
        var attributes: [STUNAttribute] = []
        while let raw = try walker.next() {
            attributes.append(try STUNAttribute(type: raw.type, value: raw.value, transactionID: walker.header.transactionID))
        }
        self.init(type: walker.header.type, transactionID: walker.header.transactionID, attributes: attributes)
    }

    /// Parses a message held in an array.
    public init(parsing bytes: [UInt8]) throws(STUNError) {
        // `withUnsafeBytes` rethrows untyped errors, so carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in Result { () throws(STUNError) in try STUNMessage(parsing: raw) } }
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

    init(_ bytes: UnsafeRawBufferPointer) throws(STUNError) {
        var r = ByteReader(bytes)
        let (rawType, length, cookie, high, low) = try reading(
            orThrow: .truncated(needed: STUNMessage.headerSize, available: bytes.count)
        ) { () throws(WireError) in
            (try r.readUInt16(), Int(try r.readUInt16()), try r.readUInt32(), try r.readUInt32(), try r.readUInt64())
        }
        // §5: the most significant two bits of every STUN message are zero.
        guard rawType & 0xC000 == 0 else { throw .topBitsSet }
        guard cookie == STUNMessage.magicCookie else { throw .badMagicCookie(cookie) }
        // §5: the length excludes the header and is a multiple of 4, as all attributes are padded.
        guard length % 4 == 0 else { throw .unalignedLength(length) }
        guard r.remaining >= length else { throw .truncated(needed: length, available: r.remaining) }
        guard r.remaining == length else { throw .trailingBytes(r.remaining - length) }
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

    init(_ bytes: UnsafeRawBufferPointer) throws(STUNError) {
        header = try STUNHeader(bytes)
        reader = ByteReader(bytes, offset: STUNMessage.headerSize)
    }

    mutating func next() throws(STUNError) -> Raw? {
        guard !reader.isAtEnd else { return nil }
        let offset = reader.offset
        // The Message Length is 4-aligned and so is every padded attribute, so a whole header fits.
        let (rawType, length) = try reading(orThrow: .truncated(needed: 4, available: reader.bytes.count - offset)) {
            () throws(WireError) in (try reader.readUInt16(), Int(try reader.readUInt16()))
        }
        let type = STUNAttributeType(rawValue: rawType)
        // §14: values are padded to 4 bytes; as the Message Length is 4-aligned, a value that fits
        // leaves room for its padding.
        let padding = (4 - length % 4) % 4
        let available = reader.remaining
        let value = try reading(orThrow: .attributePastEnd(type, length: length, available: available)) {
            () throws(WireError) in
            let value = try reader.readSlice(length)
            try reader.skip(padding)
            return value
        }
        try checkOrder(type)
        return Raw(type: type, offset: offset, value: value)
    }

    private mutating func checkOrder(_ type: STUNAttributeType) throws(STUNError) {
        if seenFingerprint { throw .misplacedAttribute(type, after: .fingerprint) }
        let lastIntegrity: STUNAttributeType? = seenIntegritySHA256 ? .messageIntegritySHA256
            : seenIntegrity ? .messageIntegrity : nil
        switch type {
        case .fingerprint:
            seenFingerprint = true
        case .messageIntegritySHA256:
            if seenIntegritySHA256 { throw .misplacedAttribute(type, after: .messageIntegritySHA256) }
            seenIntegritySHA256 = true
        case .messageIntegrity:
            if let lastIntegrity { throw .misplacedAttribute(type, after: lastIntegrity) }
            seenIntegrity = true
        default:
            if let lastIntegrity { throw .misplacedAttribute(type, after: lastIntegrity) }
        }
    }
}
