/// A JSON value (RFC 8259): what access tokens, signaling, the REST API and Insights read and
/// write. Pure: no Foundation.
///
/// Integers that fit `Int64` stay exact (`.integer`); other numbers are `.double`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The value as whole seconds for a NumericDate (RFC 7519 §2): an integer, or a finite double
    /// rounded down. Nil for anything else or out of range.
    public var numericDate: Int64? {
        switch self {
        case .integer(let n): return n
        case .double(let d):
            guard d.isFinite, d >= -9.2e18, d <= 9.2e18 else { return nil }
            return Int64(d.rounded(.down))
        default: return nil
        }
    }
}

/// A JSON object that remembers the order its members were added in (so serialisation is stable)
/// and compares equal regardless of order, as JSON objects do.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Member names in insertion order.
    public private(set) var keys: [String] = []
    /// Members by name.
    public private(set) var values: [String: JSONValue] = [:]

    public init() {}

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (k, v) in elements { self[k] = v }
    }

    /// Number of members.
    public var count: Int { keys.count }

    /// Gets, sets (appending new names at the end) or removes (`nil`) a member.
    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.values == b.values }
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }
}

extension JSONValue {
    /// Compact serialisation (no whitespace), members in insertion order, UTF-8 output.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }

    /// Appends the compact serialisation to `out`.
    public func serialize(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let n): out.append(contentsOf: String(n).utf8)
        case .double(let d):
            // JSON has no NaN or infinity (RFC 8259 §6); the parser never produces them.
            out.append(contentsOf: (d.isFinite ? String(d) : "null").utf8)
        case .string(let s): Self.serializeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.serialize(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, key) in object.keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.serializeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                object.values[key]?.serialize(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Escapes `"`, `\` and control characters (RFC 8259 §7); everything else is raw UTF-8.
    static func serializeString(_ s: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
