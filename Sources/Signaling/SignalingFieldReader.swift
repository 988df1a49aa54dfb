import JSONWire
import ParleyCore

/// Reads the typed fields of one decoded message object, throwing `SignalingError`s that carry
/// the message's `id`. Unknown members are ignored; JSON `null` counts as absent.
struct SignalingFieldReader {
    let object: JSONObject
    let type: String
    let id: String?

    /// How a string field is checked.
    enum TextRule {
        /// Ids, SIDs, identities, names: no control characters at all, not empty.
        case identifier
        /// Like `identifier`, but may be empty.
        case identifierOrEmpty
        /// Free text: no control characters except TAB, CR and LF; may be empty.
        case text
        /// Free text that may not be empty (SDP, tokens).
        case nonEmptyText
    }

    func malformed(_ reason: String) -> SignalingError {
        SignalingError(.malformedRequest, "\(type): \(reason)", id: id)
    }

    func bad(_ reason: String, code: ParleyError.Code = .badRequest) -> SignalingError {
        SignalingError(code, "\(type): \(reason)", id: id)
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    func optionalString(_ key: String, _ rule: TextRule = .identifier, limit: Int = SignalingLimits.maxIdentifierBytes,
                        code: ParleyError.Code = .badRequest) throws(SignalingError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let string) = value else { throw malformed("\"\(key)\" must be a string") }
        try Self.check(string, rule, limit: limit) { (reason: String) in bad("\"\(key)\" \(reason)", code: code) }
        return string
    }

    func string(_ key: String, _ rule: TextRule = .identifier, limit: Int = SignalingLimits.maxIdentifierBytes,
                code: ParleyError.Code = .badRequest) throws(SignalingError) -> String {
        guard let string = try optionalString(key, rule, limit: limit, code: code) else {
            throw malformed("missing field \"\(key)\"")
        }
        return string
    }

    func optionalInt(_ key: String) throws(SignalingError) -> Int? {
        guard let value = present(key) else { return nil }
        guard case .integer(let n) = value, let int = Int(exactly: n) else { throw malformed("\"\(key)\" must be an integer") }
        return int
    }

    func int(_ key: String, in range: ClosedRange<Int>? = nil) throws(SignalingError) -> Int {
        guard let int = try optionalInt(key) else { throw malformed("missing field \"\(key)\"") }
        if let range, !range.contains(int) {
            throw bad("\"\(key)\" must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return int
    }

    func optionalBool(_ key: String) throws(SignalingError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let bool) = value else { throw malformed("\"\(key)\" must be true or false") }
        return bool
    }

    func bool(_ key: String) throws(SignalingError) -> Bool {
        guard let bool = try optionalBool(key) else { throw malformed("missing field \"\(key)\"") }
        return bool
    }

    func optionalObject(_ key: String) throws(SignalingError) -> SignalingFieldReader? {
        guard let value = present(key) else { return nil }
        guard case .object(let inner) = value else { throw malformed("\"\(key)\" must be an object") }
        return SignalingFieldReader(object: inner, type: "\(type).\(key)", id: id)
    }

    /// A `{String: String}` object of at most `SignalingLimits.maxParams` members; absent is empty.
    func params(_ key: String) throws(SignalingError) -> [String: String] {
        guard let value = present(key) else { return [:] }
        guard case .object(let members) = value else { throw malformed("\"\(key)\" must be an object of strings") }
        guard members.count <= SignalingLimits.maxParams else {
            throw bad("\"\(key)\" has more than \(SignalingLimits.maxParams) entries")
        }
        var result: [String: String] = [:]
        for name in members.keys {
            guard case .string(let string)? = members[name] else { throw malformed("\"\(key)\" values must be strings") }
            try Self.check(name, .identifier, limit: SignalingLimits.maxIdentifierBytes) { (reason: String) in
                bad("a \"\(key)\" name \(reason)")
            }
            try Self.check(string, .text, limit: SignalingLimits.maxMessageBytes) { (reason: String) in
                bad("\"\(key)\" value \(reason)")
            }
            result[name] = string
        }
        return result
    }

    /// An array of identifiers of at most `limit` items.
    func identifierArray(_ key: String, limit: Int) throws(SignalingError) -> [String] {
        guard let value = present(key) else { throw malformed("missing field \"\(key)\"") }
        guard case .array(let items) = value else { throw malformed("\"\(key)\" must be an array of strings") }
        guard items.count <= limit else { throw bad("\"\(key)\" has more than \(limit) items") }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .string(let string) = item else { throw malformed("\"\(key)\" items must be strings") }
            try Self.check(string, .identifier, limit: SignalingLimits.maxIdentifierBytes) { (reason: String) in
                bad("a \"\(key)\" item \(reason)")
            }
            result.append(string)
        }
        return result
    }

    /// An array of objects of at most `limit` items, each read by its own reader; absent is
    /// an error unless `optional`, when it is empty.
    func objectArray(_ key: String, limit: Int, optional: Bool = false) throws(SignalingError) -> [SignalingFieldReader] {
        guard let value = present(key) else {
            if optional { return [] }
            throw malformed("missing field \"\(key)\"")
        }
        guard case .array(let items) = value else { throw malformed("\"\(key)\" must be an array of objects") }
        guard items.count <= limit else { throw bad("\"\(key)\" has more than \(limit) items") }
        var result: [SignalingFieldReader] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .object(let inner) = item else { throw malformed("\"\(key)\" items must be objects") }
            result.append(SignalingFieldReader(object: inner, type: "\(type).\(key)", id: id))
        }
        return result
    }

    /// A string member that must be one of an enum's raw values.
    func enumeration<E: RawRepresentable & CaseIterable>(_ key: String, default value: E? = nil) throws(SignalingError) -> E
        where E.RawValue == String {
        guard let name = try optionalString(key) else {
            if let value { return value }
            throw malformed("missing field \"\(key)\"")
        }
        guard let result = E(rawValue: name) else {
            throw bad("\"\(key)\" must be one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        return result
    }

    /// Like `enumeration`, nil when absent.
    func optionalEnumeration<E: RawRepresentable & CaseIterable>(_ key: String) throws(SignalingError) -> E?
        where E.RawValue == String {
        guard try optionalString(key) != nil else { return nil }
        return try enumeration(key) as E
    }

    /// Checks length and characters; `fail` builds the error from a reason that never quotes the value.
    static func check(_ string: String, _ rule: TextRule, limit: Int,
                      fail: (String) -> SignalingError) throws(SignalingError) {
        let utf8 = string.utf8
        guard utf8.count <= limit else { throw fail("is longer than \(limit) bytes") }
        switch rule {
        case .identifier, .nonEmptyText:
            guard !utf8.isEmpty else { throw fail("is empty") }
        case .identifierOrEmpty, .text: break
        }
        switch rule {
        case .identifier, .identifierOrEmpty:
            guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw fail("contains control characters") }
        case .text, .nonEmptyText:
            guard !utf8.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else {
                throw fail("contains control characters")
            }
        }
    }
}
