/// One header field line: the name as received and the value with folds turned into single
/// spaces and surrounding whitespace removed (RFC 3261 §7.3.1).
public struct SIPHeaderField: Sendable, Hashable {
    /// The name as received (`v`, `VIA`, `Via`…).
    public var name: String { didSet { key = SIPHeaderName.key(name) } }
    public var value: String
    /// The lowercase full name (compact forms expanded), see ``SIPHeaderName/key(_:)``: worked
    /// out once here, as every header lookup compares it.
    public private(set) var key: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
        key = SIPHeaderName.key(name)
    }
}

/// The header fields of a message in the order received. Names compare case-insensitively with
/// compact forms expanded: `headers["Via"]` finds `v:` too.
public struct SIPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [SIPHeaderField]

    public init(_ fields: [SIPHeaderField] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { SIPHeaderField(name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public func makeIterator() -> IndexingIterator<[SIPHeaderField]> { fields.makeIterator() }

    /// The first value of `name`. Setting replaces every field of that name (keeping the first
    /// one's position); nil removes them.
    public subscript(name: String) -> String? {
        get {
            let key = SIPHeaderName.key(name)
            return fields.first { $0.key == key }?.value
        }
        set {
            if let newValue { set(name, newValue) } else { remove(name) }
        }
    }

    /// Every field value of `name`, in order (one per header line; lists are not split).
    public func values(_ name: String) -> [String] {
        let key = SIPHeaderName.key(name)
        return fields.filter { $0.key == key }.map(\.value)
    }

    /// Every element of `name`: each field's value split at top-level commas when the header is a
    /// list (``SIPHeaderName/isList(_:)``), never inside a quoted string or `<…>`. Empty elements
    /// are kept so a typed parser can refuse them.
    public func elements(_ name: String) -> [String] {
        let key = SIPHeaderName.key(name)
        var elements: [String] = []
        let isList = SIPHeaderName.listKeys.contains(key)
        for field in fields where field.key == key {
            if isList { Self.appendElements(of: field.value, to: &elements) } else { elements.append(field.value) }
        }
        return elements
    }

    /// `splitList(value)` appended to `elements`; a value without a comma whose ends are not
    /// whitespace (what the parser stores) is its only element, without copying.
    private static func appendElements(of value: String, to elements: inout [String]) {
        let utf8 = value.utf8
        if !utf8.contains(UInt8(ascii: ",")), let first = utf8.first, let last = utf8.last,
           !SIPCharacters.isWhitespace(first), !SIPCharacters.isWhitespace(last) {
            elements.append(value)
        } else {
            elements.append(contentsOf: splitList(value))
        }
    }

    public func contains(_ name: String) -> Bool {
        let key = SIPHeaderName.key(name)
        return fields.contains { $0.key == key }
    }

    /// Appends a field.
    public mutating func add(_ name: String, _ value: String) { fields.append(SIPHeaderField(name: name, value: value)) }

    /// Inserts a field before all others (a proxy's Via, RFC 3261 §16.6 step 8).
    public mutating func prepend(_ name: String, _ value: String) {
        fields.insert(SIPHeaderField(name: name, value: value), at: 0)
    }

    /// Inserts a field before the first field named `name`, or appends it when there is none
    /// (e.g. a new topmost Via or Record-Route wherever the existing ones are).
    public mutating func insertFirst(_ name: String, _ value: String) {
        let key = SIPHeaderName.key(name)
        let field = SIPHeaderField(name: name, value: value)
        if let index = fields.firstIndex(where: { $0.key == key }) { fields.insert(field, at: index) } else { fields.append(field) }
    }

    /// Replaces every field of `name` by one field at the first one's position.
    public mutating func set(_ name: String, _ value: String) {
        let key = SIPHeaderName.key(name)
        guard let index = fields.firstIndex(where: { $0.key == key }) else {
            add(name, value)
            return
        }
        fields[index] = SIPHeaderField(name: fields[index].name, value: value)
        var i = fields.count - 1
        while i > index {
            if fields[i].key == key { fields.remove(at: i) }
            i -= 1
        }
    }

    /// Removes every field of `name`.
    public mutating func remove(_ name: String) {
        let key = SIPHeaderName.key(name)
        fields.removeAll { $0.key == key }
    }

    /// Removes the first element of a list header (a proxy's own topmost Via, RFC 3261 §16.7
    /// step 3; a consumed Route, §16.4): the whole field when it holds one element, otherwise the
    /// first element of its comma list.
    public mutating func removeFirstElement(_ name: String) {
        let key = SIPHeaderName.key(name)
        guard let index = fields.firstIndex(where: { $0.key == key }) else { return }
        let elements = Self.splitList(fields[index].value)
        if elements.count <= 1 {
            fields.remove(at: index)
        } else {
            fields[index].value = elements.dropFirst().joined(separator: ", ")
        }
    }

    /// Fields whose names start with `X-` (case-insensitive): the custom headers a B2BUA carries
    /// between legs.
    public var customFields: [SIPHeaderField] {
        fields.filter { $0.name.utf8.count > 2 && SIPCharacters.equalFold($0.name.prefix(2), "x-") }
    }

    /// Splits at commas outside quoted strings and angle brackets; trims each element.
    static func splitList(_ value: String) -> [String] {
        var elements: [String] = []
        var current: [UInt8] = []
        var inQuotes = false, escaped = false, inAngles = false
        for byte in value.utf8 {
            if inQuotes {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inQuotes = false }
            } else if byte == UInt8(ascii: "\"") {
                inQuotes = true
            } else if byte == UInt8(ascii: "<") {
                inAngles = true
            } else if byte == UInt8(ascii: ">") {
                inAngles = false
            } else if byte == UInt8(ascii: ","), !inAngles {
                elements.append(trimmed(current))
                current.removeAll(keepingCapacity: true)
                continue
            }
            current.append(byte)
        }
        elements.append(trimmed(current))
        return elements
    }

    static func trimmed(_ bytes: some Collection<UInt8>) -> String {
        let array = Array(bytes)
        guard let first = array.firstIndex(where: { !SIPCharacters.isWhitespace($0) }),
              let last = array.lastIndex(where: { !SIPCharacters.isWhitespace($0) }) else { return "" }
        return String(decoding: array[first...last], as: UTF8.self)
    }
}
