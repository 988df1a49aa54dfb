/// One step of a dial string: a key to press or a pause.
public enum DTMFDialElement: Hashable, Sendable {
    case digit(DTMFDigit)
    /// `w` in a dial string: wait (500 ms by default) before the next key.
    case pause
}

/// Why a dial string was refused: the first character that is not `0`–`9`, `*`, `#` or `w`.
public struct DTMFDialStringError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The offending character.
    public var character: Character
    /// Its position in the string, counted in characters from 0.
    public var position: Int

    public init(character: Character, position: Int) {
        self.character = character
        self.position = position
    }

    public var description: String {
        let shown = character.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()
        return "invalid DTMF character '\(shown)' at position \(position) (allowed: 0-9, *, # and w for a pause)"
    }
}

/// A validated dial string as the SDK's `sendDigits` takes it: the keys `0`–`9`, `*`, `#`, and `w`
/// for a 500 ms pause. Everything else (including `A`–`D`, spaces and dashes) is rejected, so a
/// typo never sends a different number than the caller meant.
public struct DTMFDialString: Hashable, Sendable, CustomStringConvertible {
    /// The keys and pauses in order.
    public let elements: [DTMFDialElement]

    /// Parses `string`; throws naming the first character that is not allowed and its position.
    /// The empty string is valid and sends nothing.
    public init(_ string: String) throws(DTMFDialStringError) {
        var elements: [DTMFDialElement] = []
        elements.reserveCapacity(string.count)
        for (position, character) in string.enumerated() {
            if character == "w" {
                elements.append(.pause)
            } else if character.isASCII, character.isNumber || character == "*" || character == "#",
                      let digit = DTMFDigit(character: character) {
                elements.append(.digit(digit))
            } else {
                throw DTMFDialStringError(character: character, position: position)
            }
        }
        self.elements = elements
    }

    /// A dial string from already validated elements (A–D allowed here, for tests and tools).
    public init(elements: [DTMFDialElement]) {
        self.elements = elements
    }

    /// The dial string back as text (`w` for pauses).
    public var description: String {
        String(elements.map { element -> Character in
            switch element {
            case .digit(let digit): digit.character
            case .pause: "w"
            }
        })
    }
}
