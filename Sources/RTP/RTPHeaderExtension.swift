/// One RFC 8285 header extension element: a local id (negotiated with `a=extmap`) and its data.
public struct RTPExtensionElement: Sendable, Hashable {
    public var id: UInt8
    public var data: [UInt8]

    public init(id: UInt8, data: [UInt8]) {
        self.id = id
        self.data = data
    }

    /// Fits the one-byte form: id 1–14, 1–16 bytes of data (RFC 8285 §4.2).
    public var fitsOneByteForm: Bool { (1...14).contains(id) && (1...16).contains(data.count) }

    /// Fits the two-byte form: id 1–255, 0–255 bytes of data (RFC 8285 §4.3).
    public var fitsTwoByteForm: Bool { id >= 1 && data.count <= 255 }
}

/// An RTP header extension block (RFC 3550 §5.3.1), decoded into RFC 8285 elements when its
/// profile is one of RFC 8285's forms and kept as opaque words otherwise.
///
/// Padding between elements is not kept: serializing lays the elements out back to back and pads
/// the block to a 32-bit boundary with zero bytes.
public enum RTPHeaderExtension: Sendable, Hashable {
    /// Profile 0xBEDE (RFC 8285 §4.2).
    case oneByte([RTPExtensionElement])
    /// Profile 0x100X (RFC 8285 §4.3); `appBits` is the low nibble of the profile.
    case twoByte(appBits: UInt8, [RTPExtensionElement])
    /// Any other profile; `data` is padded with zeros to a multiple of 4 when serialized.
    case opaque(profile: UInt16, data: [UInt8])

    /// Picks the one-byte form when every element fits it, else the two-byte form (RFC 8285 §4.1.1).
    public init(elements: [RTPExtensionElement]) throws(RTPError) {
        if elements.allSatisfy(\.fitsOneByteForm) {
            self = .oneByte(elements)
            return
        }
        for element in elements where !element.fitsTwoByteForm {
            throw .invalidExtensionElement(id: element.id, length: element.data.count)
        }
        self = .twoByte(appBits: 0, elements)
    }

    /// Decodes the extension data (after the 4-byte header) for `profile`.
    public init(profile: UInt16, data: UnsafeRawBufferPointer) throws(RTPError) {
        let form = RTPExtensionForm(profile: profile)
        let twoByte: Bool
        switch form {
        case .other(let profile):
            self = .opaque(profile: profile, data: Array(data))
            return
        case .oneByte: twoByte = false
        case .twoByte: twoByte = true
        }
        var elements: [RTPExtensionElement] = []
        var offset = 0
        loop: while true {
            switch RTPExtensionElementIterator.step(data, twoByte: twoByte, offset: &offset) {
            case .element(let id, let range):
                elements.append(RTPExtensionElement(id: id, data: Array(data[range])))
            case .end:
                break loop
            case .malformed(let at):
                throw .malformedExtensionElement(offset: at)
            }
        }
        if case .twoByte(let appBits) = form {
            self = .twoByte(appBits: appBits, elements)
        } else {
            self = .oneByte(elements)
        }
    }

    public var profile: UInt16 { form.profile }

    public var form: RTPExtensionForm {
        switch self {
        case .oneByte: .oneByte
        case .twoByte(let appBits, _): .twoByte(appBits: appBits)
        case .opaque(let profile, _): .other(profile: profile)
        }
    }

    /// The decoded elements; empty for an opaque profile.
    public var elements: [RTPExtensionElement] {
        switch self {
        case .oneByte(let elements), .twoByte(_, let elements): elements
        case .opaque: []
        }
    }

    /// The data of the first element with this id.
    public func element(id: UInt8) -> [UInt8]? {
        elements.first { $0.id == id }?.data
    }

    /// True when every element fits the block's form, so serializing loses nothing.
    public var isEncodable: Bool {
        switch self {
        case .oneByte(let elements): elements.allSatisfy(\.fitsOneByteForm)
        case .twoByte(_, let elements): elements.allSatisfy(\.fitsTwoByteForm)
        case .opaque(_, let data): data.count <= 0xFFFF * 4
        }
    }

    /// Length of the data after the 4-byte header, padded to 32 bits.
    public var dataSize: Int {
        let unpadded: Int
        switch self {
        case .oneByte(let elements): unpadded = elements.reduce(0) { $0 + 1 + $1.data.count }
        case .twoByte(_, let elements): unpadded = elements.reduce(0) { $0 + 2 + $1.data.count }
        case .opaque(_, let data): unpadded = data.count
        }
        return (unpadded + 3) & ~3
    }

    /// Header (profile and length) plus padded data.
    public var serializedSize: Int { 4 + dataSize }

    /// Writes header and data. Fields that do not fit their form are truncated, never trapped on;
    /// check `isEncodable` (or build with `init(elements:)`) first.
    func write(to out: inout some RTPByteSink) {
        let size = dataSize
        out.put16(profile)
        out.put16(UInt16(truncatingIfNeeded: size / 4))
        var written = 0
        switch self {
        case .oneByte(let elements):
            for e in elements {
                out.put8((e.id & 0x0F) << 4 | UInt8(truncatingIfNeeded: e.data.count &- 1) & 0x0F)
                out.put(e.data)
                written += 1 + e.data.count
            }
        case .twoByte(_, let elements):
            for e in elements {
                out.put8(e.id)
                out.put8(UInt8(truncatingIfNeeded: e.data.count))
                out.put(e.data)
                written += 2 + e.data.count
            }
        case .opaque(_, let data):
            out.put(data)
            written = data.count
        }
        out.putZeros(size - written)
    }
}
