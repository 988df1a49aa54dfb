import WireKit

extension STUNAttribute {
    /// Decodes one attribute value (without padding). XOR-encoded addresses need the message's
    /// transaction ID (RFC 8489 §14.2). Every fixed-size value must have exactly its size.
    init(type: STUNAttributeType, value v: UnsafeRawBufferPointer, transactionID id: STUNTransactionID) throws(STUNError) {
        switch type {
        case .mappedAddress: self = .mappedAddress(try AddressAttribute.parse(v, type, xor: nil))
        case .xorMappedAddress: self = .xorMappedAddress(try AddressAttribute.parse(v, type, xor: id))
        case .alternateServer: self = .alternateServer(try AddressAttribute.parse(v, type, xor: nil))
        case .xorPeerAddress: self = .xorPeerAddress(try AddressAttribute.parse(v, type, xor: id))
        case .xorRelayedAddress: self = .xorRelayedAddress(try AddressAttribute.parse(v, type, xor: id))
        case .username: self = .username(try TextAttribute.parse(v, type, maxBytes: TextAttribute.usernameMaxBytes))
        case .realm: self = .realm(try TextAttribute.parse(v, type, maxBytes: TextAttribute.textMaxBytes))
        case .nonce: self = .nonce(try TextAttribute.parse(v, type, maxBytes: TextAttribute.textMaxBytes))
        case .software: self = .software(try TextAttribute.parse(v, type, maxBytes: TextAttribute.textMaxBytes))
        case .messageIntegrity:
            try STUNIntegrity.Algorithm.sha1.checkReceivedLength(v.count)
            self = .messageIntegrity(Array(v))
        case .messageIntegritySHA256:
            try STUNIntegrity.Algorithm.sha256.checkReceivedLength(v.count)
            self = .messageIntegritySHA256(Array(v))
        case .fingerprint: self = .fingerprint(try Self.fixed32(v, type))
        case .errorCode: self = .errorCode(try STUNErrorCode(parsing: v))
        case .unknownAttributes: self = .unknownAttributes(try UnknownAttributesAttribute.parse(v))
        case .priority: self = .priority(try Self.fixed32(v, type))
        case .useCandidate: try Self.empty(v, type); self = .useCandidate
        case .iceControlled: self = .iceControlled(try Self.fixed64(v, type))
        case .iceControlling: self = .iceControlling(try Self.fixed64(v, type))
        case .lifetime: self = .lifetime(try Self.fixed32(v, type))
        case .channelNumber:
            // §18.1: number (16 bits) then RFFU (16 bits). The 0x4000–0x4FFF range is the server's
            // check (it answers 400), not the codec's.
            self = .channelNumber(UInt16(truncatingIfNeeded: try Self.fixed32(v, type) >> 16))
        case .requestedTransport:
            // §18.8: protocol (8 bits) then RFFU (24 bits).
            self = .requestedTransport(UInt8(truncatingIfNeeded: try Self.fixed32(v, type) >> 24))
        case .requestedAddressFamily:
            // §18.6: family (8 bits) then reserved (24 bits).
            self = .requestedAddressFamily(STUNAddressFamily(rawValue: UInt8(truncatingIfNeeded: try Self.fixed32(v, type) >> 24)))
        case .dontFragment: try Self.empty(v, type); self = .dontFragment
        case .data: self = .data(Array(v))
        default: self = .unknown(type: type, value: Array(v))
        }
    }

    /// Bytes of the value, without the 4-byte header or padding.
    var valueLength: Int {
        switch self {
        case .mappedAddress(let a), .xorMappedAddress(let a), .alternateServer(let a),
             .xorPeerAddress(let a), .xorRelayedAddress(let a):
            AddressAttribute.valueLength(a)
        case .username(let s), .realm(let s), .nonce(let s), .software(let s): s.utf8.count
        case .messageIntegrity(let b), .messageIntegritySHA256(let b), .data(let b), .unknown(_, let b): b.count
        case .errorCode(let e): e.valueLength
        case .unknownAttributes(let types): 2 * types.count
        case .useCandidate, .dontFragment: 0
        case .fingerprint, .priority, .lifetime, .channelNumber, .requestedTransport, .requestedAddressFamily: 4
        case .iceControlled, .iceControlling: 8
        }
    }

    /// Header, value and zero padding to a 4-byte boundary (RFC 8489 §14).
    var paddedLength: Int { 4 + ((valueLength + 3) & ~3) }

    /// Writes header, value and padding. The caller has checked `valueLength` fits 16 bits.
    func serialize(into w: inout ByteWriter, transactionID id: STUNTransactionID) {
        let length = valueLength
        w.writeUInt16(type.rawValue)
        w.writeUInt16(UInt16(truncatingIfNeeded: length))
        switch self {
        case .mappedAddress(let a), .alternateServer(let a): AddressAttribute.serialize(a, xor: nil, into: &w)
        case .xorMappedAddress(let a), .xorPeerAddress(let a), .xorRelayedAddress(let a):
            AddressAttribute.serialize(a, xor: id, into: &w)
        case .username(let s), .realm(let s), .nonce(let s), .software(let s): w.writeBytes(s.utf8)
        case .messageIntegrity(let b), .messageIntegritySHA256(let b), .data(let b), .unknown(_, let b): w.writeBytes(b)
        case .errorCode(let e): e.serialize(into: &w)
        case .unknownAttributes(let types): for t in types { w.writeUInt16(t.rawValue) }
        case .useCandidate, .dontFragment: break
        case .fingerprint(let v), .priority(let v), .lifetime(let v): w.writeUInt32(v)
        case .channelNumber(let n): w.writeUInt32(UInt32(n) << 16)
        case .requestedTransport(let p): w.writeUInt32(UInt32(p) << 24)
        case .requestedAddressFamily(let f): w.writeUInt32(UInt32(f.rawValue) << 24)
        case .iceControlled(let v), .iceControlling(let v): w.writeUInt64(v)
        }
        w.writeZeros((4 - length % 4) % 4)
    }

    /// A 4-byte value, such as PRIORITY, LIFETIME or FINGERPRINT.
    static func fixed32(_ v: UnsafeRawBufferPointer, _ type: STUNAttributeType) throws(STUNError) -> UInt32 {
        guard v.count == 4 else { throw .invalidValueLength(type, length: v.count) }
        return UInt32(bigEndian: v.loadUnaligned(as: UInt32.self))
    }

    private static func fixed64(_ v: UnsafeRawBufferPointer, _ type: STUNAttributeType) throws(STUNError) -> UInt64 {
        guard v.count == 8 else { throw .invalidValueLength(type, length: v.count) }
        return UInt64(bigEndian: v.loadUnaligned(as: UInt64.self))
    }

    private static func empty(_ v: UnsafeRawBufferPointer, _ type: STUNAttributeType) throws(STUNError) {
        guard v.isEmpty else { throw .invalidValueLength(type, length: v.count) }
    }
}
