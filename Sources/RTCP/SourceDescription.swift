import WireKit

/// Source description, PT 202 (RFC 3550 §6.5): per-source chunks of typed text items (CNAME …).
public struct SourceDescription: RTCPMessage {
    /// An SDES item type (§6.5, IANA "RTP SDES item types"); unknown values are kept.
    public struct ItemType: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let cname = Self(rawValue: 1)
        public static let name = Self(rawValue: 2)
        public static let email = Self(rawValue: 3)
        public static let phone = Self(rawValue: 4)
        public static let location = Self(rawValue: 5)
        public static let tool = Self(rawValue: 6)
        public static let note = Self(rawValue: 7)
        /// PRIV (§6.5.8): the text starts with a length-prefixed prefix string, kept raw here.
        public static let priv = Self(rawValue: 8)
    }

    /// One item: a type and up to 255 octets of (normally UTF-8) text.
    public struct Item: Sendable, Hashable {
        public var type: ItemType
        /// The octets on the wire; at most 255 are written.
        public var text: [UInt8]

        public init(type: ItemType, text: [UInt8]) {
            self.type = type
            self.text = text
        }

        public init(type: ItemType, _ text: String) {
            self.init(type: type, text: Array(text.utf8))
        }

        /// The text decoded as UTF-8 (invalid sequences replaced).
        public var string: String { String(decoding: text, as: UTF8.self) }
    }

    /// The items describing one SSRC or CSRC.
    public struct Chunk: Sendable, Hashable {
        public var source: UInt32
        public var items: [Item]

        public init(source: UInt32, items: [Item]) {
            self.source = source
            self.items = items
        }

        /// Items, the null terminator, then padding to 32 bits (§6.5).
        var size: Int { align4(4 + items.reduce(0) { $0 + 2 + min($1.text.count, 255) } + 1) }
    }

    /// Chunks; at most 31 are written (SC is 5 bits).
    public var chunks: [Chunk]

    public init(chunks: [Chunk]) {
        self.chunks = chunks
    }

    /// A single chunk with a CNAME item, as every compound packet carries (§6.1).
    public init(source: UInt32, cname: String) {
        chunks = [Chunk(source: source, items: [Item(type: .cname, cname)])]
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(packet, type: .sourceDescription)
        var r = body
        var chunks: [Chunk] = []
        for _ in 0..<header.count {
            guard r.remaining >= 4 else { throw .countMismatch(count: Int(header.count), available: r.remaining) }
            let start = r.offset
            let source = try r.u32()
            var items: [Item] = []
            while true {
                // The list ends at a null octet; padding nulls then reach the next 32-bit boundary.
                guard let type = try? r.u8() else { throw .malformedSourceDescription }
                if type == 0 { break }
                guard let length = try? r.u8(), let text = try? r.bytes(Int(length)) else {
                    throw .malformedSourceDescription
                }
                items.append(Item(type: ItemType(rawValue: type), text: text))
            }
            let used = r.offset - start
            guard (try? r.skip(align4(used) - used)) != nil else { throw .malformedSourceDescription }
            chunks.append(Chunk(source: source, items: items))
        }
        guard r.remaining == 0 else { throw .countMismatch(count: Int(header.count), available: r.remaining) }
        self.chunks = chunks
    }

    /// The first CNAME item's text for `source`, if any.
    public func cname(for source: UInt32) -> String? {
        chunks.first { $0.source == source }?.items.first { $0.type == .cname }?.string
    }

    public var serializedSize: Int { 4 + chunks.prefix(31).reduce(0) { $0 + $1.size } }

    public func serialize(into w: inout ByteWriter) {
        let written = chunks.prefix(31)
        RTCPHeader.write(count: UInt8(written.count), type: .sourceDescription, size: serializedSize, into: &w)
        for chunk in written {
            w.writeUInt32(chunk.source)
            var used = 4
            for item in chunk.items {
                let text = item.text.prefix(255)
                w.writeUInt8(item.type.rawValue)
                w.writeUInt8(UInt8(text.count))
                w.writeBytes(text)
                used += 2 + text.count
            }
            w.writeZeros(chunk.size - used)  // terminator and padding
        }
    }
}
