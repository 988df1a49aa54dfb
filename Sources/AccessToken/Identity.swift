import ParleyCore

/// The client identity rule of the Voice SDK.
///
/// An identity is 1 to 121 characters, each an ASCII letter, digit or underscore
/// (`^[A-Za-z0-9_]{1,121}$`). Tokens whose `grants.identity` breaks the rule are rejected with
/// 20106 (`.accessTokenGrantsInvalid`) and a failure reason naming the rule; minting refuses them too.
public enum Identity {
    /// The longest identity allowed, in characters.
    public static let maxLength = 121

    /// The rule, as it appears in failure reasons.
    public static let ruleDescription = "identity must be 1 to 121 characters, letters, digits and underscore only"

    /// True if `identity` satisfies the rule.
    public static func isValid(_ identity: String) -> Bool {
        let bytes = identity.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
        }
    }

    /// Throws 20106 with the rule as the failure reason if `identity` breaks it.
    public static func validate(_ identity: String) throws(ParleyError) {
        guard isValid(identity) else { throw ParleyError(.accessTokenGrantsInvalid, reason: ruleDescription) }
    }
}
