import WireKit

/// The shared value layout of the address attributes (RFC 8489 §14.1, §14.2):
///
///      0                   1                   2                   3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |0 0 0 0 0 0 0 0|    Family     |         (X-)Port              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                (X-)Address (32 bits or 128 bits)              |
///
/// The XOR variants XOR the port with the top 16 bits of the magic cookie and the address with
/// the cookie (IPv4) or the cookie followed by the transaction ID (IPv6).
enum AddressAttribute {
    /// The value length for an address of this family: 8 or 20 bytes.
    static func valueLength(_ address: STUNAddress) -> Int {
        switch address.ip {
        case .v4: 8
        case .v6: 20
        }
    }

    /// Parses the value of a `type` attribute; `xor` carries the transaction ID for the XOR
    /// variants, nil for plain ones.
    static func parse(_ value: UnsafeRawBufferPointer, _ type: STUNAttributeType,
                      xor transactionID: STUNTransactionID?) throws(STUNError) -> STUNAddress {
        guard value.count >= 4 else { throw .invalidValueLength(type, length: value.count) }
        let family = STUNAddressFamily(rawValue: value[1])  // value[0] is reserved; ignored on receipt
        guard family == .ipv4 || family == .ipv6 else { throw .unknownAddressFamily(family.rawValue) }
        guard value.count == (family == .ipv4 ? 8 : 20) else { throw .invalidValueLength(type, length: value.count) }
        var r = ByteReader(value, offset: 2)
        let (port, ip) = try reading(orThrow: .invalidValueLength(type, length: value.count)) {
            () throws(WireError) -> (UInt16, STUNAddress.IP) in
            let port = try r.readUInt16()
            return (port, family == .ipv4 ? .v4(try r.readUInt32()) : .v6(high: try r.readUInt64(), low: try r.readUInt64()))
        }
        let address = STUNAddress(ip: ip, port: port)
        guard let transactionID else { return address }
        return xored(address, transactionID)
    }

    static func serialize(_ address: STUNAddress, xor transactionID: STUNTransactionID?, into w: inout ByteWriter) {
        let a = transactionID.map { xored(address, $0) } ?? address
        w.writeUInt8(0)
        w.writeUInt8(a.ip.family.rawValue)
        w.writeUInt16(a.port)
        switch a.ip {
        case .v4(let v):
            w.writeUInt32(v)
        case .v6(let high, let low):
            w.writeUInt64(high)
            w.writeUInt64(low)
        }
    }

    /// XOR is its own inverse, so this both encodes and decodes (RFC 8489 §14.2).
    static func xored(_ address: STUNAddress, _ id: STUNTransactionID) -> STUNAddress {
        let cookie = STUNMessage.magicCookie
        let port = address.port ^ UInt16(truncatingIfNeeded: cookie >> 16)
        switch address.ip {
        case .v4(let v):
            return STUNAddress(ip: .v4(v ^ cookie), port: port)
        case .v6(let high, let low):
            let key = UInt64(cookie) << 32 | UInt64(id.high)
            return STUNAddress(ip: .v6(high: high ^ key, low: low ^ id.low), port: port)
        }
    }
}
