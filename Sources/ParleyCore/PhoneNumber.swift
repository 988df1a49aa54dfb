/// Telephone numbers as callers write them and as E.164 keeps them (ITU-T E.164: a country code
/// and at most 15 digits in all). One reading for the REST API, TwiML `<Number>` and SIP
/// Request-URIs (RFC 3966 §5.1.1 visual separators), so a number is the same everywhere.
public enum PhoneNumber {
    /// Visual separators a dialed number may carry (RFC 3966 §5.1.1 `-`, `.`, `(`, `)`, and spaces).
    static let separators: Set<Character> = [" ", "-", ".", "(", ")"]

    /// `+` and 2–15 digits once separators are removed; nil otherwise. With `requirePlus` false,
    /// digits without `+` are taken as they are dialed (carriers send both forms) and get one.
    public static func e164(_ text: String, requirePlus: Bool = true) -> String? {
        let kept = text.filter { !separators.contains($0) }
        let hasPlus = kept.hasPrefix("+")
        let digits = hasPlus ? kept.dropFirst() : kept[...]
        guard hasPlus || !requirePlus, (2...15).contains(digits.count), digits.allSatisfy(isDigit) else { return nil }
        return "+" + digits
    }

    /// Whether `text` reads as a number to dial: digits (two at least), an optional leading `+`
    /// and separators, nothing else.
    public static func isDialable(_ text: String) -> Bool {
        dialed(text) != nil
    }

    /// What a trunk is sent for `text`: its digits with the leading `+` kept; nil when `text` is
    /// not a number to dial.
    public static func dialed(_ text: String) -> String? {
        let kept = text.filter { !separators.contains($0) }
        let digits = kept.hasPrefix("+") ? kept.dropFirst() : kept[...]
        guard digits.count >= 2, digits.count <= 32, digits.allSatisfy(isDigit) else { return nil }
        return kept
    }

    private static func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
}
