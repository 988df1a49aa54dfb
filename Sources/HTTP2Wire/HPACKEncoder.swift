/// Encodes header lists as HPACK field blocks (RFC 7541 §6) for one direction of one connection.
///
/// Exact matches in the static or dynamic table become indexed fields (§6.1); other fields are
/// literals with the field's `indexing` (§6.2), naming a table entry when one has the name (static
/// table first). Strings are Huffman-coded per `huffman`.
public struct HPACKEncoder: Sendable {
    public enum HuffmanPolicy: Sendable {
        case never, always
        /// Huffman-code a string only when that makes it shorter.
        case whenShorter
    }

    public var huffman: HuffmanPolicy
    public private(set) var table: HPACKDynamicTable
    /// The most this encoder wants to use, whatever the peer allows.
    private let preferredMaxSize: Int
    /// Size updates owed at the start of the next block (§4.2): the smallest, then the final size.
    private var pendingUpdates: [Int] = []

    /// `maxTableSize` caps the dynamic table; it starts at the protocol's initial 4096 or less.
    public init(maxTableSize: Int = 4096, huffman: HuffmanPolicy = .whenShorter) {
        preferredMaxSize = max(0, maxTableSize)
        self.huffman = huffman
        table = HPACKDynamicTable(maxSize: 4096)
        if preferredMaxSize != 4096 { apply(min(4096, preferredMaxSize)) }
    }

    /// The peer's SETTINGS_HEADER_TABLE_SIZE changed: shrink (or grow up to `maxTableSize`) and
    /// signal the change at the start of the next block (RFC 7541 §4.2, RFC 9113 §4.3.1).
    public mutating func setPeerMaxTableSize(_ limit: Int) {
        let target = min(max(0, limit), preferredMaxSize)
        if target != table.maxSize { apply(target) }
    }

    private mutating func apply(_ size: Int) {
        table.resize(size)
        if let smallest = pendingUpdates.first, smallest < size {
            pendingUpdates = [smallest, size]
        } else {
            pendingUpdates = [size]
        }
    }

    /// Encodes `fields` as one field block.
    public mutating func encode(_ fields: [HPACKHeaderField]) -> [UInt8] {
        var out: [UInt8] = []
        encode(fields, into: &out)
        return out
    }

    /// Appends one field block for `fields`.
    public mutating func encode(_ fields: [HPACKHeaderField], into out: inout [UInt8]) {
        for size in pendingUpdates { HPACKPrimitives.writeInteger(size, prefixBits: 5, flags: 0x20, into: &out) }
        pendingUpdates = []
        for field in fields { encode(field, into: &out) }
    }

    private mutating func encode(_ field: HPACKHeaderField, into out: inout [UInt8]) {
        let staticCount = HPACKStaticTable.count
        let dynamic = field.indexing == .never ? (exact: nil, name: nil) : table.find(name: field.name, value: field.value)
        if field.indexing != .never {
            if let index = HPACKStaticTable.pairIndex[field.name]?[field.value] {
                return HPACKPrimitives.writeInteger(index, prefixBits: 7, flags: 0x80, into: &out)
            }
            if let index = dynamic.exact {
                return HPACKPrimitives.writeInteger(staticCount + index, prefixBits: 7, flags: 0x80, into: &out)
            }
        }
        let nameIndex = HPACKStaticTable.nameIndex[field.name] ?? dynamic.name.map { staticCount + $0 } ?? 0
        let (prefixBits, flags): (Int, UInt8) = switch field.indexing {
        case .incremental: (6, 0x40)
        case .withoutIndexing: (4, 0x00)
        case .never: (4, 0x10)
        }
        HPACKPrimitives.writeInteger(nameIndex, prefixBits: prefixBits, flags: flags, into: &out)
        if nameIndex == 0 { writeString(field.name, into: &out) }
        writeString(field.value, into: &out)
        if field.indexing == .incremental {
            table.add(name: field.name, value: field.value, nameSize: field.name.utf8.count, size: field.size)
        }
    }

    private func writeString(_ text: String, into out: inout [UInt8]) {
        let bytes = text.utf8
        let useHuffman: Bool = switch huffman {
        case .never: false
        case .always: true
        case .whenShorter: HPACKHuffman.encodedLength(bytes) < bytes.count
        }
        HPACKPrimitives.writeString(bytes, huffman: useHuffman, into: &out)
    }
}
