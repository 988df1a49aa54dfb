import WireKit

extension STUNMessage {
    /// Bytes `serialize(into:)` writes with no integrity or fingerprint requested.
    public var serializedSize: Int {
        attributes.reduce(Self.headerSize) { $0 + $1.paddedLength }
    }

    /// Appends the message to `writer`: header, each attribute padded with zeros (RFC 8489 §14),
    /// then, when asked, MESSAGE-INTEGRITY(-SHA256) (§14.5, §14.6) and FINGERPRINT (§14.7).
    ///
    /// With `integrity`, any MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and FINGERPRINT already in
    /// `attributes` are left out and fresh ones computed; with only `fingerprint`, an existing
    /// FINGERPRINT is left out. So a parsed message can be edited and signed again.
    ///
    /// Throws, writing nothing, if the attributes exceed the 16-bit Message Length (65,535 bytes).
    public func serialize(into writer: inout ByteWriter, integrity: STUNIntegrity? = nil,
                          fingerprint: Bool = false) throws(STUNError) {
        let stripIntegrity = integrity != nil
        let stripFingerprint = stripIntegrity || fingerprint
        func kept(_ a: STUNAttribute) -> Bool {
            switch a {
            case .messageIntegrity, .messageIntegritySHA256: !stripIntegrity
            case .fingerprint: !stripFingerprint
            default: true
            }
        }
        var length = 0
        for a in attributes where kept(a) { length += a.paddedLength }
        let keptLength = length
        if let integrity { length += 4 + integrity.macLength }
        if fingerprint { length += 8 }
        guard length <= 0xFFFF else { throw .messageTooLong(attributeBytes: length) }

        let start = writer.count
        writer.writeUInt16(type.encoded)
        writer.writeUInt16(UInt16(keptLength))
        writer.writeUInt32(Self.magicCookie)
        writer.writeUInt32(transactionID.high)
        writer.writeUInt64(transactionID.low)
        for a in attributes where kept(a) {
            a.serialize(into: &writer, transactionID: transactionID)
        }
        if let integrity { integrity.append(to: &writer, messageStart: start) }
        if fingerprint { Fingerprint.append(to: &writer, messageStart: start) }
    }

    /// The message as a new array; see `serialize(into:integrity:fingerprint:)`.
    public func serialized(integrity: STUNIntegrity? = nil, fingerprint: Bool = false) throws(STUNError) -> [UInt8] {
        var writer = ByteWriter(capacity: serializedSize + 64)
        try serialize(into: &writer, integrity: integrity, fingerprint: fingerprint)
        return writer.take()
    }
}
