/// One of the sixteen DTMF keys, with its RFC 4733 §3.2 event code as raw value
/// (0–9 are the digits, 10 is `*`, 11 is `#`, 12–15 are A–D).
public enum DTMFDigit: UInt8, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case zero = 0, one, two, three, four, five, six, seven, eight, nine
    case star = 10, pound = 11
    case a = 12, b, c, d

    /// The RFC 4733 event code (same as `rawValue`).
    public var eventCode: UInt8 { rawValue }

    /// The digit for an RFC 4733 event code, or nil for codes outside the DTMF range 0–15.
    public init?(eventCode: UInt8) {
        self.init(rawValue: eventCode)
    }

    /// The digit a key character names: `0`–`9`, `*`, `#`, and `A`–`D` in either case.
    public init?(character: Character) {
        guard let ascii = character.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self.init(rawValue: ascii - UInt8(ascii: "0"))
        default: self.init(asciiLetterOrSymbol: ascii)
        }
    }

    private init?(asciiLetterOrSymbol ascii: UInt8) {
        switch Character(Unicode.Scalar(ascii)) {
        case "*": self = .star
        case "#": self = .pound
        case "A", "a": self = .a
        case "B", "b": self = .b
        case "C", "c": self = .c
        case "D", "d": self = .d
        default: return nil
        }
    }

    /// The key's character: `0`–`9`, `*`, `#`, `A`–`D`.
    public var character: Character {
        switch self {
        case .star: "*"
        case .pound: "#"
        case .a, .b, .c, .d: Character(Unicode.Scalar(UInt8(ascii: "A") + rawValue - 12))
        default: Character(Unicode.Scalar(UInt8(ascii: "0") + rawValue))
        }
    }

    public var description: String { String(character) }

    /// The four low-group (row) frequencies in hertz (ITU-T Q.23).
    public static let rowFrequencies: [Double] = [697, 770, 852, 941]
    /// The four high-group (column) frequencies in hertz (ITU-T Q.23).
    public static let columnFrequencies: [Double] = [1209, 1336, 1477, 1633]

    /// The keypad row (0–3) and column (0–3) of the key:
    /// `1 2 3 A / 4 5 6 B / 7 8 9 C / * 0 # D`.
    public var keypadPosition: (row: Int, column: Int) {
        switch self {
        case .one, .two, .three: (0, Int(rawValue) - 1)
        case .four, .five, .six: (1, Int(rawValue) - 4)
        case .seven, .eight, .nine: (2, Int(rawValue) - 7)
        case .star: (3, 0)
        case .zero: (3, 1)
        case .pound: (3, 2)
        case .a, .b, .c, .d: (Int(rawValue) - 12, 3)
        }
    }

    /// The key at `row` and `column` of the keypad, or nil outside 0–3.
    public init?(row: Int, column: Int) {
        guard (0..<4).contains(row), (0..<4).contains(column) else { return nil }
        self = Self.keypad[row * 4 + column]
    }

    private static let keypad: [DTMFDigit] = [
        .one, .two, .three, .a,
        .four, .five, .six, .b,
        .seven, .eight, .nine, .c,
        .star, .zero, .pound, .d,
    ]

    /// The low-group (row) frequency in hertz.
    public var lowFrequency: Double { Self.rowFrequencies[keypadPosition.row] }
    /// The high-group (column) frequency in hertz.
    public var highFrequency: Double { Self.columnFrequencies[keypadPosition.column] }
}
