/// Decodes HPACK field blocks (RFC 7541 §3, §6) for one direction of one connection.
///
/// Bounded: integers are capped, strings cannot exceed the block, and once the decoded list passes
/// `maxHeaderListSize` further fields are dropped (the block is still processed to keep the table in
/// step) and `headerListTooLarge` is thrown at the end. Never traps on any input.
public struct HPACKDecoder: Sendable {
    /// The SETTINGS_HEADER_TABLE_SIZE announced to the peer: size updates above it are errors (§6.3).
    public var maxTableSizeLimit: Int
    /// The largest decoded list accepted, counted as RFC 9113 §6.5.2 does (octets plus 32 per field).
    public var maxHeaderListSize: Int
    public private(set) var table: HPACKDynamicTable

    public init(maxTableSize: Int = 4096, maxHeaderListSize: Int = 64 * 1024) {
        maxTableSizeLimit = maxTableSize
        self.maxHeaderListSize = maxHeaderListSize
        table = HPACKDynamicTable(maxSize: maxTableSize)
    }

    /// Decodes one complete field block.
    public mutating func decode(_ block: [UInt8]) throws(HPACKError) -> [HPACKHeaderField] {
        var result: Result<[HPACKHeaderField], HPACKError> = .success([])
        block.withUnsafeBytes { raw in
            do throws(HPACKError) { result = .success(try decode(raw)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// Decodes one complete field block.
    public mutating func decode(_ block: UnsafeRawBufferPointer) throws(HPACKError) -> [HPACKHeaderField] {
        var fields: [HPACKHeaderField] = []
        var listSize = 0
        var index = 0
        var sawField = false
        while index < block.count {
            let first = block[index]
            if first & 0xE0 == 0x20 {
                // §6.3 dynamic table size update: only before the first field (§4.2).
                guard !sawField else { throw .misplacedTableSizeUpdate }
                let size = try HPACKPrimitives.readInteger(block, at: &index, prefixBits: 5)
                guard size <= maxTableSizeLimit else { throw .tableSizeAboveLimit(size) }
                table.resize(size)
                continue
            }
            sawField = true
            let name: String, value: String, nameSize: Int, size: Int
            let indexing: HPACKHeaderField.Indexing
            if first & 0x80 != 0 {
                // §6.1 indexed field.
                let i = try HPACKPrimitives.readInteger(block, at: &index, prefixBits: 7)
                (name, value, nameSize, size) = try lookup(i)
                indexing = .incremental
            } else {
                // §6.2.1 with incremental indexing (01), §6.2.2 without (0000), §6.2.3 never (0001).
                let prefixBits: Int
                if first & 0x40 != 0 {
                    (prefixBits, indexing) = (6, .incremental)
                } else {
                    (prefixBits, indexing) = (4, first & 0x10 != 0 ? .never : .withoutIndexing)
                }
                let i = try HPACKPrimitives.readInteger(block, at: &index, prefixBits: prefixBits)
                if i == 0 {
                    let raw = try HPACKPrimitives.readString(block, at: &index)
                    (name, nameSize) = (String(decoding: raw, as: UTF8.self), raw.count)
                } else {
                    let entry = try lookup(i)
                    (name, nameSize) = (entry.name, entry.nameSize)
                }
                let raw = try HPACKPrimitives.readString(block, at: &index)
                value = String(decoding: raw, as: UTF8.self)
                size = nameSize + raw.count + 32
                if indexing == .incremental { table.add(name: name, value: value, nameSize: nameSize, size: size) }
            }
            listSize += size
            if listSize <= maxHeaderListSize { fields.append(HPACKHeaderField(name: name, value: value, indexing: indexing)) }
        }
        guard listSize <= maxHeaderListSize else { throw .headerListTooLarge(listSize) }
        return fields
    }

    /// The static (1...61) or dynamic (62...) entry at `index` (§2.3.3).
    private func lookup(_ index: Int) throws(HPACKError) -> (name: String, value: String, nameSize: Int, size: Int) {
        if index >= 1 && index <= HPACKStaticTable.count {
            let entry = HPACKStaticTable.entries[index - 1]
            let nameSize = entry.name.utf8.count
            return (entry.name, entry.value, nameSize, nameSize + entry.value.utf8.count + 32)
        }
        guard let entry = table.entry(index - HPACKStaticTable.count) else { throw .invalidIndex(index) }
        return (entry.name, entry.value, entry.nameSize, entry.size)
    }
}
