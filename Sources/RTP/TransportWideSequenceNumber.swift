import WireKit

/// The transport-wide sequence number element
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2): a 16-bit counter shared by all
/// streams on one transport, echoed back in transport-wide CC feedback.
public struct TransportWideSequenceNumber: Sendable, Hashable {
    public var value: UInt16

    public init(_ value: UInt16) {
        self.value = value
    }

    /// Decodes the first 2 bytes of an element's data.
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        guard data.count >= 2 else { throw .elementTooShort(needed: 2, available: data.count) }
        value = RTPBytes.load16(data, 0)
    }

    /// Element data size.
    public static let serializedSize = 2

    /// The 2 element data bytes.
    public var serialized: [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }

    public func serialize(into writer: inout ByteWriter) { writer.writeUInt16(value) }
}
