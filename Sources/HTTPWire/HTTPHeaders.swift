/// An ordered list of HTTP header fields (RFC 9110 §5). Names compare case-insensitively; order and
/// duplicates are kept as received so serialization round-trips.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields in order, with names as received.
    public private(set) var fields: [(name: String, value: String)]

    /// An empty header list.
    public init() { fields = [] }

    /// Headers from `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)]) { fields = pairs.map { (name: $0.0, value: $0.1) } }

    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The number of fields.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// The first value of `name` (case-insensitive). Setting replaces every field named `name`;
    /// setting nil removes them.
    public subscript(name: String) -> String? {
        get { fields.first { Self.equal($0.name, name) }?.value }
        set {
            if let newValue { set(name, newValue) } else { remove(name) }
        }
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.equal($0.name, name) }.map(\.value)
    }

    /// Whether any field is named `name`.
    public func contains(_ name: String) -> Bool { fields.contains { Self.equal($0.name, name) } }

    /// Appends a field, keeping existing fields with the same name.
    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { Self.equal($0.name, name) }) {
            fields[index].value = value
            var i = fields.count - 1
            while i > index {
                if Self.equal(fields[i].name, name) { fields.remove(at: i) }
                i -= 1
            }
        } else {
            add(name, value)
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) { fields.removeAll { Self.equal($0.name, name) } }

    /// Comma-separated list tokens of `name`, lowercased (RFC 9110 §5.6.1), e.g. `Connection`.
    public func tokens(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces().lowercased() }
            .filter { !$0.isEmpty }
    }

    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// Appends `name: value\r\n` for each field.
    public func serialize(into out: inout [UInt8]) {
        for field in fields {
            out.append(contentsOf: field.name.utf8)
            out.append(0x3A); out.append(0x20)
            out.append(contentsOf: field.value.utf8)
            out.append(0x0D); out.append(0x0A)
        }
    }

    /// ASCII case-insensitive comparison (header names are tokens, RFC 9110 §5.1).
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where p != q {
            guard lower(p) == lower(q) else { return false }
        }
        return true
    }

    private static func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
