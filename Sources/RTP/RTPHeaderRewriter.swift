/// Rewrites header fields of an RTP packet in place, for an SFU forwarding one publisher's stream
/// to many subscribers (new SSRC, sequence numbers without gaps, shifted timestamps).
///
/// Validates the packet once, like `RTPPacketView`; the setters then store straight into the
/// buffer. Nothing is copied or allocated. Setters are `nonmutating`: the buffer is the state.
public struct RTPHeaderRewriter {
    public let buffer: UnsafeMutableRawBufferPointer
    /// Where the header extension's data sits in `buffer`, if X is set.
    public let extensionRange: Range<Int>?

    /// Validates `buffer` as an RTP packet (same checks as `RTPPacketView`).
    public init(_ buffer: UnsafeMutableRawBufferPointer) throws(RTPError) {
        let view = try RTPPacketView(UnsafeRawBufferPointer(buffer))
        self.buffer = buffer
        extensionRange = view.extensionRange
    }

    public var marker: Bool {
        get { buffer[1] & 0x80 != 0 }
        nonmutating set { buffer[1] = (buffer[1] & 0x7F) | (newValue ? 0x80 : 0) }
    }

    public var payloadType: UInt8 {
        get { buffer[1] & 0x7F }
        nonmutating set { buffer[1] = (buffer[1] & 0x80) | (newValue & 0x7F) }
    }

    public var sequenceNumber: UInt16 {
        get { RTPBytes.load16(UnsafeRawBufferPointer(buffer), 2) }
        nonmutating set { RTPBytes.store16(newValue, buffer, 2) }
    }

    public var timestamp: UInt32 {
        get { RTPBytes.load32(UnsafeRawBufferPointer(buffer), 4) }
        nonmutating set { RTPBytes.store32(newValue, buffer, 4) }
    }

    public var ssrc: UInt32 {
        get { RTPBytes.load32(UnsafeRawBufferPointer(buffer), 8) }
        nonmutating set { RTPBytes.store32(newValue, buffer, 8) }
    }

    /// The data of the first RFC 8285 element with this id, writable in place (its length is fixed).
    public func extensionElement(id: UInt8) -> UnsafeMutableRawBufferPointer? {
        guard let range = extensionRange else { return nil }
        let profile = RTPBytes.load16(UnsafeRawBufferPointer(buffer), range.lowerBound - 4)
        let form = RTPExtensionForm(profile: profile)
        let data = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[range])
        for element in RTPExtensionElementIterator(data: data, form: form) where element.id == id {
            let start = range.lowerBound + element.range.lowerBound
            return UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + element.range.count])
        }
        return nil
    }

    /// Overwrites the transport-wide sequence number element with this id (an SFU renumbers it per
    /// outgoing transport); false when the packet has no such element of at least 2 bytes.
    @discardableResult
    public func setTransportWideSequenceNumber(_ value: UInt16, id: UInt8) -> Bool {
        guard let element = extensionElement(id: id), element.count >= 2 else { return false }
        RTPBytes.store16(value, element, 0)
        return true
    }

    /// Overwrites the abs-send-time element with this id; false when there is no 3-byte element.
    @discardableResult
    public func setAbsSendTime(_ value: AbsSendTime, id: UInt8) -> Bool {
        guard let element = extensionElement(id: id), element.count >= 3 else { return false }
        value.write(to: element)
        return true
    }
}
