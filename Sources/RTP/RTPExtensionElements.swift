/// The RFC 8285 form of an RTP header extension block, chosen by its 16-bit profile field.
public enum RTPExtensionForm: Hashable, Sendable {
    /// One-byte header elements, profile 0xBEDE (RFC 8285 §4.2).
    case oneByte
    /// Two-byte header elements, profile 0x100 followed by 4 application bits (RFC 8285 §4.3).
    case twoByte(appBits: UInt8)
    /// Any other profile (RFC 3550 §5.3.1): the data is opaque to this package.
    case other(profile: UInt16)

    /// The one-byte form's profile value.
    public static let oneByteProfile: UInt16 = 0xBEDE

    public init(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & 0xFFF0 == 0x1000 {
            self = .twoByte(appBits: UInt8(profile & 0x000F))
        } else {
            self = .other(profile: profile)
        }
    }

    /// The value written in the extension header's "defined by profile" field.
    public var profile: UInt16 {
        switch self {
        case .oneByte: Self.oneByteProfile
        case .twoByte(let appBits): 0x1000 | UInt16(appBits & 0x0F)
        case .other(let profile): profile
        }
    }
}

/// One element seen in place: its id and a view of its data inside the packet buffer.
public struct RTPExtensionElementView {
    public let id: UInt8
    /// The element's data; valid only while the buffer the packet view was made from is.
    public let data: UnsafeRawBufferPointer
    /// Where `data` sits within the extension data block that was walked.
    public let range: Range<Int>
}

/// Walks the elements of an RFC 8285 extension block without copying or allocating.
///
/// Padding bytes (id 0) are skipped; in the one-byte form id 15 ends processing (RFC 8285 §4.2).
/// An element that would run past the block ends the walk and sets `isMalformed`.
public struct RTPExtensionElementIterator: IteratorProtocol, Sequence {
    private let data: UnsafeRawBufferPointer
    private let isTwoByte: Bool
    private var offset = 0
    private var done: Bool
    /// True once the walk met an element running past the end of the block.
    public private(set) var isMalformed = false

    /// Elements of `data` (the extension data after its 4-byte header) in the given form; `.other`
    /// yields nothing.
    public init(data: UnsafeRawBufferPointer, form: RTPExtensionForm) {
        self.data = data
        switch form {
        case .oneByte: isTwoByte = false; done = false
        case .twoByte: isTwoByte = true; done = false
        case .other: isTwoByte = false; done = true
        }
    }

    public mutating func next() -> RTPExtensionElementView? {
        guard !done else { return nil }
        switch Self.step(data, twoByte: isTwoByte, offset: &offset) {
        case .element(let id, let range):
            return RTPExtensionElementView(id: id, data: UnsafeRawBufferPointer(rebasing: data[range]), range: range)
        case .end:
            done = true
        case .malformed:
            done = true
            isMalformed = true
        }
        return nil
    }

    enum Step {
        case element(id: UInt8, range: Range<Int>)
        case end
        case malformed(offset: Int)
    }

    /// Advances past padding to the next element of `data` starting at `offset`.
    static func step(_ data: UnsafeRawBufferPointer, twoByte: Bool, offset: inout Int) -> Step {
        while offset < data.count {
            let start = offset
            let first = data[offset]
            if first == 0 {  // padding byte, in either form (RFC 8285 §4.1.2)
                offset += 1
                continue
            }
            let id: UInt8
            let length: Int
            if twoByte {
                // §4.3: 8-bit id, 8-bit length (0–255), then data.
                guard offset + 1 < data.count else { return .malformed(offset: start) }
                id = first
                length = Int(data[offset + 1])
                offset += 2
            } else {
                // §4.2: 4-bit id, 4-bit length-minus-one; id 15 stops processing.
                id = first >> 4
                if id == 0 { offset += 1; continue }
                if id == 15 { return .end }
                length = Int(first & 0x0F) + 1
                offset += 1
            }
            guard length <= data.count - offset else { return .malformed(offset: start) }
            defer { offset += length }
            return .element(id: id, range: offset..<offset + length)
        }
        return .end
    }
}
