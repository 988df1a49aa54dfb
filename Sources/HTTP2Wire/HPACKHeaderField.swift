/// One header field as HPACK carries it (RFC 7541 §1.3), with how it is (or was) represented.
public struct HPACKHeaderField: Sendable, Hashable, CustomStringConvertible {
    /// How the encoder represents a literal (RFC 7541 §6.2).
    public enum Indexing: Sendable, Hashable {
        /// §6.2.1: added to the dynamic table.
        case incremental
        /// §6.2.2: not added.
        case withoutIndexing
        /// §6.2.3: not added, and intermediaries must not add it either (for secrets, §7.1.3).
        case never
    }

    public var name: String
    public var value: String
    public var indexing: Indexing

    public init(name: String, value: String, indexing: Indexing = .incremental) {
        self.name = name
        self.value = value
        self.indexing = indexing
    }

    /// The entry size the dynamic table charges (§4.1): name and value octets plus 32.
    public var size: Int { name.utf8.count + value.utf8.count + 32 }

    /// `name: value`, except that never-indexed values are hidden.
    public var description: String { indexing == .never ? "\(name): <hidden>" : "\(name): \(value)" }
}
